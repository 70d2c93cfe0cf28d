/**
 * The source guard: finds Node-only code (a `node:` or bare builtin import, `process`,
 * `Buffer`, `require`, `__dirname`, `__filename`) in files that must run on Web APIs alone.
 *
 * It reads code, not text: comments are dropped and string contents are looked at only where
 * they are module specifiers, so a JSDoc example or an error message that says "process" is
 * no violation, while `globalThis.process` is.
 *
 * @module
 */

import { builtinModules } from "node:module";

/**
 * One forbidden use, with its 1-based line.
 *
 * @example
 * ```ts
 * const v: Violation = { line: 3, what: 'import of "node:fs"' };
 * ```
 */
export interface Violation {
  line: number;
  what: string;
}

interface Token {
  kind: "code" | "string";
  text: string;
  /** 1-based line where the token starts. */
  line: number;
}

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith("_")));
const FORBIDDEN = /(?<![\w$])(process|Buffer|require|__dirname|__filename)(?![\w$])/g;
/** Code right before a string that makes the string a module specifier. */
const SPECIFIER_CONTEXT = /(?:\bfrom|\bimport|\bimport\s*\(|\brequire\s*\(|\bresolve\s*\()\s*$/;
/** After these, a `/` starts a regular expression rather than a division. */
const REGEX_PREFIX =
  /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn|\btypeof|\bcase|\bdo|\belse|\bin|\bof)\s*$/;

/**
 * Split source text into code and string-literal tokens, dropping comments. Template literal
 * text counts as a string; `${…}` inside it is code again. Regex literals are dropped.
 */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let code = "";
  let codeLine = 1;
  // Each open template literal records the brace depth its `${` started at.
  const templates: number[] = [];
  let depth = 0;
  const flush = (): void => {
    if (code !== "") tokens.push({ kind: "code", text: code, line: codeLine });
    code = "";
  };
  const advance = (text: string): void => {
    for (const ch of text) if (ch === "\n") line++;
  };
  let i = 0;
  const readTemplateText = (): void => {
    // Called just after a backtick or a closing `}` of `${`: read up to `${` or the backtick.
    const start = line;
    let text = "";
    while (i < source.length) {
      const ch = source[i]!;
      if (ch === "\\") {
        text += source.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (ch === "`") {
        i++;
        templates.pop();
        break;
      }
      if (ch === "$" && source[i + 1] === "{") {
        i += 2;
        depth++;
        break;
      }
      text += ch;
      i++;
    }
    advance(text);
    tokens.push({ kind: "string", text, line: start });
    codeLine = line;
  };
  while (i < source.length) {
    const ch = source[i]!;
    const next = source[i + 1];
    if (ch === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      i = end === -1 ? source.length : end;
      continue;
    }
    if (ch === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      advance(source.slice(i, stop));
      code += " ";
      i = stop;
      continue;
    }
    if (ch === "/" && REGEX_PREFIX.test(code)) {
      // A regex literal: skip it (character classes may hold an unescaped `/`).
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n") {
        const c = source[j]!;
        if (c === "\\") j++;
        else if (c === "[") inClass = true;
        else if (c === "]") inClass = false;
        else if (c === "/" && !inClass) break;
        j++;
      }
      i = j + 1;
      while (i < source.length && /[a-z]/i.test(source[i]!)) i++;
      code += " /re/ ";
      continue;
    }
    if (ch === '"' || ch === "'") {
      flush();
      const start = line;
      let text = "";
      let j = i + 1;
      while (j < source.length && source[j] !== ch && source[j] !== "\n") {
        if (source[j] === "\\") {
          if (source[j + 1] === "\n") line++;
          text += source[j + 1] ?? "";
          j += 2;
          continue;
        }
        text += source[j];
        j++;
      }
      tokens.push({ kind: "string", text, line: start });
      // An unterminated string stops at the newline, which the code path then counts.
      i = source[j] === ch ? j + 1 : j;
      codeLine = line;
      continue;
    }
    if (ch === "`") {
      flush();
      i++;
      templates.push(depth);
      readTemplateText();
      continue;
    }
    if (ch === "{") depth++;
    if (ch === "}") {
      depth--;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        flush();
        i++;
        readTemplateText();
        continue;
      }
    }
    if (code === "") codeLine = line;
    if (ch === "\n") line++;
    code += ch;
    i++;
  }
  flush();
  return tokens;
}

/**
 * Every Node-only use in one file's source text.
 *
 * @example
 * ```ts
 * findNodeOnlyCode('import { readFile } from "node:fs/promises";'); // [{ line: 1, what: … }]
 * findNodeOnlyCode('// process.env is not read here'); // []
 * ```
 */
export function findNodeOnlyCode(source: string): Violation[] {
  const violations: Violation[] = [];
  const tokens = tokenize(source);
  let before = "";
  for (const token of tokens) {
    if (token.kind === "string") {
      if (SPECIFIER_CONTEXT.test(before)) {
        const specifier = token.text;
        const bare = specifier.split("/")[0] ?? "";
        if (specifier.startsWith("node:") || BUILTINS.has(specifier) || BUILTINS.has(bare)) {
          violations.push({ line: token.line, what: `import of "${specifier}"` });
        }
      }
      before += '""';
      continue;
    }
    for (const match of token.text.matchAll(FORBIDDEN)) {
      const prefix = token.text.slice(0, match.index);
      // `obj.process` is someone's property; `globalThis.process` is Node's.
      const member = /\.\s*$/.test(prefix) && !/\b(?:globalThis|self|window|global)\s*\.\s*$/
        .test(prefix);
      // `{ process: … }` is a key; `import.meta` is not in this list at all.
      const key = /[{,]\s*$/.test(before + prefix) &&
        /^\s*:/.test(token.text.slice(match.index + match[0].length));
      if (member || key) continue;
      const line = token.line + (prefix.match(/\n/g)?.length ?? 0);
      violations.push({ line, what: `use of \`${match[1]}\`` });
    }
    before = (before + token.text).slice(-200);
  }
  return violations;
}
