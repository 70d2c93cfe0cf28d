/**
 * Parsing of the demo upstream's fault spec (the `x-demo-fault` header).
 *
 * @module
 */

/**
 * The faults one request of the demo upstream should suffer, after per-attempt overrides.
 * Times are milliseconds except `retryAfter` (seconds, as in the HTTP header).
 *
 * @example
 * ```ts
 * const faults: DemoFaults = { status: 503, retryAfter: 1 };
 * ```
 */
export interface DemoFaults {
  /** Answer this status with an OpenAI-style JSON error (200 means "no status fault"). */
  status?: number;
  retryAfter?: number;
  retryAfterMs?: number;
  /** Cut the connection after this many words, with no terminal event. */
  dropAfter?: number;
  stallMs?: number;
  /** Words sent before the stall (default 1). */
  stallAfter?: number;
  /** Send `: ping` comment lines this often while the body is open. */
  pingMs?: number;
  /** Send an in-stream `data: {"error": …}` event after this many words, then end. */
  errorEventAfter?: number;
  /** Delay before the response headers. */
  firstByteMs?: number;
  /** Answer 200 with an HTML page instead of a stream. */
  html?: boolean;
  wordDelayMs?: number;
  words?: number;
  /** Number of reasoning words sent before the answer. */
  reasoning?: number;
  /**
   * For the relay in front of the demo, not the demo itself: the relay cuts its own caller's
   * connection after this many events (a resumable stream runs on, to be resumed).
   */
  callerDropAfter?: number;
}

type NumberField = Exclude<keyof DemoFaults, "html">;

/**
 * Every demo response ends within this many milliseconds, whatever its fault spec: a spec
 * that would take longer is refused with a 400.
 *
 * @example
 * ```ts
 * MAX_RESPONSE_MS; // 120000
 * ```
 */
export const MAX_RESPONSE_MS = 120_000;
// Upper bounds keep a publicly deployed demo from being turned into a cheap way to hold
// connections open for hours or to stream megabytes per request.
const MAX_MS = MAX_RESPONSE_MS;
/** At most 50 pings a second: `ping-ms=1` meant 800 a second (timer granularity permitting). */
const MIN_PING_MS = 20;
const NUMERIC_KEYS: Readonly<Record<string, readonly [NumberField, number, number]>> = {
  "status": ["status", 200, 599],
  "retry-after": ["retryAfter", 0, 3600],
  "retry-after-ms": ["retryAfterMs", 0, 3_600_000],
  "drop-after": ["dropAfter", 0, 10_000],
  "stall-ms": ["stallMs", 0, MAX_MS],
  "stall-after": ["stallAfter", 0, 10_000],
  "ping-ms": ["pingMs", MIN_PING_MS, MAX_MS],
  "error-event-after": ["errorEventAfter", 0, 10_000],
  "first-byte-ms": ["firstByteMs", 0, MAX_MS],
  "word-delay": ["wordDelayMs", 0, 10_000],
  "words": ["words", 1, 5_000],
  "reasoning": ["reasoning", 0, 1_000],
  "caller-drop-after": ["callerDropAfter", 1, 10_000],
};

/** Every key `parseDemoFaults` accepts, for error messages and documentation. */
const DEMO_FAULT_KEYS: readonly string[] = [...Object.keys(NUMERIC_KEYS), "html"];

const ATTEMPT_KEY = /^attempt([1-9][0-9]*)$/;
const INTEGER = /^[0-9]+$/;

/**
 * Parse an `x-demo-fault` spec into the faults that apply to one attempt.
 *
 * The spec is a comma-separated list of `key=value`. `attemptN=key:value` applies only to
 * attempt N and overrides the general keys; several per-attempt faults are written either as
 * repeated entries or joined with `;` (`attempt1=status:503;retry-after:1`). Every entry is
 * validated, including those for other attempts, so a typo never goes unnoticed.
 *
 * @throws {TypeError} on an unknown key or an entry that is not `key=value`.
 * @throws {RangeError} on a value that is not an integer in the key's range.
 * @example
 * ```ts
 * parseDemoFaults("drop-after=5,attempt1=status:503", 1); // { dropAfter: 5, status: 503 }
 * parseDemoFaults("drop-after=5,attempt1=status:503", 2); // { dropAfter: 5 }
 * ```
 */
export function parseDemoFaults(spec: string, attempt: number): DemoFaults {
  const general: DemoFaults = {};
  const current: DemoFaults = {};
  for (const raw of spec.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const [key, value] = splitOnce(entry, "=", entry);
    const match = ATTEMPT_KEY.exec(key);
    if (match === null) {
      setFault(general, key, value);
      continue;
    }
    const target = Number(match[1]) === attempt ? current : {};
    for (const part of value.split(";")) {
      const inner = part.trim();
      if (inner === "") continue;
      const [innerKey, innerValue] = splitOnce(inner, ":", entry);
      setFault(target, innerKey, innerValue);
    }
  }
  return { ...general, ...current };
}

function splitOnce(text: string, separator: string, entry: string): [string, string] {
  const at = text.indexOf(separator);
  if (at <= 0) {
    throw new TypeError(
      `x-demo-fault entry "${entry}" must look like key${separator}value (e.g. status${separator}503)`,
    );
  }
  return [text.slice(0, at).trim().toLowerCase(), text.slice(at + 1).trim()];
}

function setFault(faults: DemoFaults, key: string, value: string): void {
  if (key === "html") {
    faults.html = parseFlag(value);
    return;
  }
  // Own keys only: `__proto__`, `constructor` or `toString` must be unknown keys, not
  // Object.prototype's members.
  const spec = Object.hasOwn(NUMERIC_KEYS, key) ? NUMERIC_KEYS[key] : undefined;
  if (spec === undefined) {
    throw new TypeError(
      `Unknown x-demo-fault key "${key}"; known keys: ${DEMO_FAULT_KEYS.join(", ")}, attemptN`,
    );
  }
  const [field, min, max] = spec;
  const n = INTEGER.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max) || (field === "status" && n > 200 && n < 400)) {
    const range = field === "status" ? "200 or 400–599" : `an integer from ${min} to ${max}`;
    throw new RangeError(`x-demo-fault "${key}" must be ${range}, got "${value}"`);
  }
  faults[field] = n;
}

function parseFlag(value: string): boolean {
  if (value === "1" || value === "true") return true;
  if (value === "0" || value === "false") return false;
  throw new RangeError(`x-demo-fault "html" must be 1, 0, true or false, got "${value}"`);
}
