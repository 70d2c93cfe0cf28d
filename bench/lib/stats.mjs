// Summaries: min/median/max over runs, nearest-rank percentiles over trials.

/** Sorted copy. */
function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of `values`; null when empty. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const s = sorted(values);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[rank - 1];
}

/** The median (the mean of the middle two for an even count); null when empty. */
export function median(values) {
  if (values.length === 0) return null;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** `{ min, median, max }` of `values`. */
export function spread(values) {
  if (values.length === 0) return null;
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** `{ n, median, p90, p99, max }` of latency trials. */
export function latency(values) {
  if (values.length === 0) return null;
  return {
    n: values.length,
    min: Math.min(...values),
    median: median(values),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: Math.max(...values),
  };
}

/** Rounds for JSON: 3 significant decimals is plenty for ms and ratios. */
export function round(value, digits = 3) {
  if (value === null || value === undefined) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
