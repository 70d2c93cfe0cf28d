// Keeping credentials out of what stopstream says. Text is redacted before it is cut, and a
// key's first MIN_SECRET characters redact the rest of its token: a key cut short still goes.

export const REDACTED = "[redacted]";
/** Shorter strings would redact ordinary words. */
const MIN_SECRET = 8;
const CREDENTIAL_HEADER = /auth|key|token|secret|password/i;
/** Covers a key echoed masked (`sk-proj-****wxyz`). */
const TOKEN_CHAR = /[\w*-]/;
/** Error fields holding an object a server sent: redacted as its JSON. */
const CARRIED = new Set(["body", "data", "headers"]);

export function redact(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    const head = secret.slice(0, MIN_SECRET);
    let out = "";
    let from = 0;
    for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, from)) {
      let end = at + MIN_SECRET;
      while (end < text.length && (text[end] === secret[end - at] || TOKEN_CHAR.test(text[end]!))) {
        end++;
      }
      out += text.slice(from, at) + REDACTED;
      from = end;
    }
    text = out + text.slice(from);
  }
  return text;
}

/** Masked keys as providers echo them (`sk-proj-****…Ab1c`): their ends are still the key's. */
export function redactMasked(text: string): string {
  let out = "";
  let from = 0;
  for (let at = text.indexOf("****"); at !== -1; at = text.indexOf("****", from)) {
    let start = at;
    while (start > from && TOKEN_CHAR.test(text[start - 1]!)) start--;
    let end = at;
    while (end < text.length && TOKEN_CHAR.test(text[end]!)) end++;
    out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

export function excerpt(text: string, max: number, secrets: readonly string[]): string {
  return redact(text, secrets).slice(0, max);
}

export function credentialsOf(headers: Headers): string[] {
  const found: string[] = [];
  headers.forEach((value, name) => {
    if (CREDENTIAL_HEADER.test(name)) found.push(value.slice(value.lastIndexOf(" ") + 1));
  });
  return found;
}

/** In place: message, stack, every string field, `body`/`data`/`headers`, and the `cause` chain. */
export function redactError<T>(error: T, secrets: readonly string[]): T {
  let current: unknown = error;
  const chain: Array<Error & Record<string, unknown>> = [];
  for (let depth = 0; depth < 8 && current instanceof Error && secrets.length > 0; depth++) {
    const target = current as Error & Record<string, unknown>;
    const { stack } = target; // formatted now, with the message as it was
    const message = redact(String(target.message), secrets);
    let cleaned = write(target, "message", message) &&
      (typeof stack !== "string" || write(target, "stack", redact(stack, secrets)));
    // Every field, not a list of the known ones: a server's words reach more of them than the
    // body (a response header echoing the key, a redirect's target).
    for (const field of Object.keys(target)) {
      const value = target[field];
      if (typeof value !== "string" && !(CARRIED.has(field) && value != null)) continue;
      cleaned = write(target, field, redactValue(value, secrets)) && cleaned;
    }
    if (!cleaned) {
      // An error that takes nothing (a frozen one) leaves the chain: a plain copy takes its
      // place, and so does each error above it that will not take the copy as its cause.
      let copy = plainCopy(target, message, undefined);
      for (let i = chain.length - 1; i >= 0; i--) {
        if (write(chain[i]!, "cause", copy)) return error;
        copy = plainCopy(chain[i]!, String(chain[i]!.message), copy);
      }
      return copy as T;
    }
    chain.push(target);
    current = target.cause;
  }
  return error;
}

function plainCopy(error: Error, message: string, cause: Error | undefined): Error {
  return Object.assign(new Error(message, { cause }), { name: error.name });
}

/** Writes an own value (shadowing a getter), unless unchanged; `false` if refused. */
function write(object: Record<string, unknown>, field: string, value: unknown): boolean {
  if (object[field] === value) return true;
  try {
    Object.defineProperty(object, field, { value, writable: true, configurable: true });
    return true;
  } catch {
    return false;
  }
}

/** A string, or a parsed body redacted as its JSON text (a key's characters need no escape). */
function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redact(value, secrets);
  try {
    return JSON.parse(redact(JSON.stringify(value), secrets));
  } catch {
    return value; // not JSON-able (nothing stopstream builds): left as it is
  }
}
