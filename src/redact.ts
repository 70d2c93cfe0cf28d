/**
 * Keeping credentials out of what stopstream says. An upstream may echo the key it was sent
 * (in an error message, a body, an in-stream error), and error text is cut to a readable
 * length; redacting after the cut would let a key that straddles it leak its first characters.
 * So text is redacted first, and redaction also catches a key that was cut already: anything
 * that starts with a key's first {@linkcode MIN_SECRET} characters goes, as far as it matches.
 *
 * @module
 */

/** What replaces a secret. */
export const REDACTED = "[redacted]";
/** Shorter strings are not treated as secrets: they would redact ordinary words. */
const MIN_SECRET = 8;
/** Header names whose values are credentials (`authorization`, `x-api-key`, `cf-aig-…`). */
const CREDENTIAL_HEADER = /auth|key|token|secret|password/i;
/** Fields of stopstream's errors that hold what a provider sent. */
const CARRIED = ["body", "data", "providerMessage"] as const;
/** How much of a parsed body is walked: error bodies are capped at 64 KiB anyway. */
const MAX_NODES = 10_000;

/**
 * `text` with every occurrence of a secret — or of a secret's first 8 characters, with the rest
 * of that token (a key cut short, or masked) — replaced by `[redacted]`.
 *
 * @example
 * ```ts
 * redact("bad key sk-abcdefgh123", ["sk-abcdefgh1234567"]); // "bad key [redacted]"
 * ```
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    const head = secret.slice(0, MIN_SECRET);
    let at = out.indexOf(head);
    if (at === -1) continue;
    let kept = "";
    let from = 0;
    while (at !== -1) {
      // The rest of the token goes too: the key cut short, or echoed masked (`sk-proj-****wxyz`).
      let end = at + MIN_SECRET;
      while (end < out.length && (out[end] === secret[end - at] || isTokenChar(out, end))) end++;
      kept += out.slice(from, at) + REDACTED;
      from = end;
      at = out.indexOf(head, end);
    }
    out = kept + out.slice(from);
  }
  return out;
}

/** `[A-Za-z0-9_*-]`: what a key, or a key echoed masked, is made of. */
function isTokenChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 ||
    c === 45 || c === 42;
}

/**
 * `text` without keys as providers echo them masked (`sk-proj-****…Ab1c`): their ends are still
 * the key's. Linear: one `indexOf` per mask.
 *
 * @example
 * ```ts
 * redactMasked("Incorrect API key provided: sk-proj-****wxyz."); // "Incorrect API key provided: [redacted]."
 * ```
 */
export function redactMasked(text: string): string {
  let out = "";
  let from = 0;
  let at = text.indexOf("****");
  while (at !== -1) {
    let start = at;
    while (start > from && isTokenChar(text, start - 1)) start--;
    let end = at;
    while (end < text.length && isTokenChar(text, end)) end++;
    out += text.slice(from, start) + REDACTED;
    from = end;
    at = text.indexOf("****", end);
  }
  return out + text.slice(from);
}

/**
 * Redacts then cuts: at most `max` characters of `text`, with no secret (or its head) in them.
 *
 * @example
 * ```ts
 * excerpt(body, 200, [apiKey]);
 * ```
 */
export function excerpt(text: string, max: number, secrets: readonly string[]): string {
  return redact(text, secrets).slice(0, max);
}

/**
 * The credentials a request carries: the values of its `authorization`-, `key`- or
 * `token`-like headers (an `Authorization` value without its scheme, too).
 *
 * @example
 * ```ts
 * credentialsOf(new Headers({ authorization: "Bearer sk-1234567890" })); // ["Bearer sk-1234567890", "sk-1234567890"]
 * ```
 */
export function credentialsOf(headers: Headers): string[] {
  const found: string[] = [];
  headers.forEach((value, name) => {
    if (!CREDENTIAL_HEADER.test(name)) return;
    found.push(value);
    const space = value.indexOf(" ");
    if (space !== -1) found.push(value.slice(space + 1).trim());
  });
  // Longest first: a bare key must not be found inside "Bearer <key>" after the latter went.
  return found.sort((a, b) => b.length - a.length);
}

/**
 * Redacts `secrets` from an error, in place: its message and stack, the `body`, `data` and
 * `providerMessage` it carries (an upstream's error body, an in-stream error), and its `cause`
 * chain.
 *
 * @example
 * ```ts
 * throw redactError(error, credentialsOf(request.headers));
 * ```
 */
export function redactError<T>(error: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return error;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const target = current as Error & Record<string, unknown>;
    const { stack } = target; // formatted now, with the message as it was
    target.message = redact(target.message, secrets);
    if (typeof stack === "string") target.stack = redact(stack, secrets);
    // What a provider sent: an error body, an in-stream error object, its message.
    for (const field of CARRIED) {
      if (field in target) target[field] = redactValue(target[field], secrets, { nodes: 0 });
    }
    current = target.cause;
  }
  return error;
}

/** Strings redacted, objects and arrays walked (in place: they are parsed bodies we own). */
function redactValue(value: unknown, secrets: readonly string[], seen: { nodes: number }): unknown {
  if (typeof value === "string") return redact(value, secrets);
  if (typeof value !== "object" || value === null || ++seen.nodes > MAX_NODES) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const clean = redactValue(record[key], secrets, seen);
    const cleanKey = redact(key, secrets);
    if (cleanKey !== key) delete record[key];
    record[cleanKey] = clean;
  }
  return value;
}
