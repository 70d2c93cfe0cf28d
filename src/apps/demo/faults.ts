// Parsing of the demo upstream's fault spec (the `x-demo-fault` header).

/** Every demo response ends within this many ms: a fault spec that would take longer gets a 400. */
export const MAX_RESPONSE_MS = 120_000;
// Each key's field and bounds. Upper bounds keep a public demo from holding connections open for
// hours or streaming megabytes. Times are ms except `retry-after` (seconds, as in the header).
const NUMERIC_KEYS = {
  "status": ["status", 200, 599], // 200 means no status fault
  "retry-after": ["retryAfter", 0, 3600],
  "retry-after-ms": ["retryAfterMs", 0, 3_600_000],
  "drop-after": ["dropAfter", 0, 10_000],
  "stall-ms": ["stallMs", 0, MAX_RESPONSE_MS],
  "stall-after": ["stallAfter", 0, 10_000], // words sent before the stall (default 1)
  "ping-ms": ["pingMs", 20, MAX_RESPONSE_MS],
  "error-event-after": ["errorEventAfter", 0, 10_000],
  "first-byte-ms": ["firstByteMs", 0, MAX_RESPONSE_MS],
  "word-delay": ["wordDelayMs", 0, 10_000],
  "words": ["words", 1, 5_000],
  "reasoning": ["reasoning", 0, 1_000],
  // For the relay, not the demo: it cuts its own caller after this many events.
  "caller-drop-after": ["callerDropAfter", 1, 10_000],
} as const;

type NumberField = (typeof NUMERIC_KEYS)[keyof typeof NUMERIC_KEYS][0];
/** The parsed `x-demo-fault` spec: one field per key of the table above, plus `html`. */
export type DemoFaults = { [Field in NumberField]?: number } & { html?: boolean };

const ATTEMPT_KEY = /^attempt([1-9][0-9]*)$/;
const INTEGER = /^[0-9]+$/;

/** `key=value,…`; `attemptN=key:value;…` for attempt N only (all attempts' entries checked). */
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
    if (!["1", "true", "0", "false"].includes(value)) {
      throw new RangeError(`x-demo-fault "html" must be 1, 0, true or false, got "${value}"`);
    }
    faults.html = value === "1" || value === "true";
    return;
  }
  // Own keys only: `__proto__` or `toString` must be unknown keys, not Object.prototype's.
  if (!Object.hasOwn(NUMERIC_KEYS, key)) {
    const known = [...Object.keys(NUMERIC_KEYS), "html", "attemptN"].join(", ");
    throw new TypeError(`Unknown x-demo-fault key "${key}"; known keys: ${known}`);
  }
  const [field, min, max] = NUMERIC_KEYS[key as keyof typeof NUMERIC_KEYS];
  const n = INTEGER.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max) || (field === "status" && n > 200 && n < 400)) {
    const range = field === "status" ? "200 or 400–599" : `an integer from ${min} to ${max}`;
    throw new RangeError(`x-demo-fault "${key}" must be ${range}, got "${value}"`);
  }
  faults[field] = n;
}
