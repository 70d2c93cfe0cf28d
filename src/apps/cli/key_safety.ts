// Where an API key could leak from the CLI: echoed back by a usage message after being pasted
// into the wrong flag, or sent in clear over plain http.

import { redact } from "../../core/redact.ts";

/** The prefixes providers give their keys, and a JWT's `eyJ`. */
const KEY_PREFIX = /^(?:(?:sk|gsk|xai|hf|ghp|gho|github_pat|r8|pplx|nvapi|csk)[-_]|AIza|eyJ)/;
/** Shorter words with a key's prefix are ordinary words (`sk-1`), or a placeholder (`sk-...`). */
const MIN_PREFIXED = 8;
/** A key with no known prefix (Azure's, Mistral's): a long run mixing letters and digits. */
const MIN_UNPREFIXED = 20;

function keyWords(value: string): string[] {
  return value.split(/[^\w-]+/).filter((word) =>
    (word.length >= MIN_PREFIXED && KEY_PREFIX.test(word)) ||
    (word.length >= MIN_UNPREFIXED && /\d/.test(word) && /[A-Za-z]/.test(word))
  );
}

export function looksLikeKey(value: string): boolean {
  return keyWords(value).length > 0;
}

/** `, got "value"` for a usage message, unless the value looks like a key: never echo one. */
export function got(value: string, what = "the value given"): string {
  return looksLikeKey(value)
    ? `; ${what} looks like an API key, so it is not shown (a key belongs in an environment ` +
      "variable, named with --api-key-env)"
    : `, got "${value}"`;
}

/** Text that may quote the command line (Node's own parse errors), with key-like args removed. */
export function withoutKeys(text: string, argv: readonly string[]): string {
  return redact(text, argv.flatMap(keyWords));
}

/** `localhost`, `127.0.0.0/8`, `[::1]`: a request there never leaves this machine. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A key sent there can be read (and changed) by anything on the way. */
export function isInsecure(url: URL): boolean {
  return url.protocol === "http:" && !isLoopback(url);
}
