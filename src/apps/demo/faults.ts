/**
 * Parsing of the demo upstream's fault spec (the `x-demo-fault` header).
 * @module
 */

/** Times are milliseconds except `retryAfter` (seconds, as in the HTTP header). */
export interface DemoFaults {
  /** 200 means no status fault. */
  status?: number;
  retryAfter?: number;
  retryAfterMs?: number;
  dropAfter?: number;
  stallMs?: number;
  /** Words sent before the stall (default 1). */
  stallAfter?: number;
  pingMs?: number;
  errorEventAfter?: number;
  firstByteMs?: number;
  html?: boolean;
  wordDelayMs?: number;
  words?: number;
  reasoning?: number;
  /** For the relay, not the demo: it cuts its own caller after this many events. */
  callerDropAfter?: number;
}

type NumberField = Exclude<keyof DemoFaults, "html">;

/** Every demo response ends within this many ms: a fault spec that would take longer gets a 400. */
export const MAX_RESPONSE_MS = 120_000;
// Upper bounds keep a public demo from holding connections open for hours or streaming megabytes.
const MAX_MS = MAX_RESPONSE_MS;
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

const DEMO_FAULT_KEYS: readonly string[] = [...Object.keys(NUMERIC_KEYS), "html"];

const ATTEMPT_KEY = /^attempt([1-9][0-9]*)$/;
const INTEGER = /^[0-9]+$/;

/**
 * `key=value,…`; `attemptN=key:value;key:value` applies to attempt N only, over general keys.
 * Other attempts' entries are validated too, so a typo never goes unnoticed.
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
  // Own keys only: `__proto__` or `toString` must be unknown keys, not Object.prototype's.
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
