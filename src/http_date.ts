/**
 * A strict HTTP-date parser (RFC 9110 §5.6.7). `Date.parse` accepts almost anything — `-1`,
 * `12 1` and `3/4` are all dates to it, in the past, so a `Retry-After` of garbage became
 * "retry at once". Only the three formats the RFC defines are accepted here.
 *
 * @module
 */

const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
/**
 * The three formats in one pattern (one per format cost the core a quarter of a kilobyte):
 * IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` and the obsolete RFC 850
 * `Sunday, 06-Nov-94 08:49:37 GMT` (groups 1–3: day, month, year), the obsolete asctime
 * `Sun Nov  6 08:49:37 1994` (groups 4–5: month, day; 9: year); 6–8: the time. A date has
 * exactly one year: before the time, with `GMT` after it, or at the end. The day's name is
 * not checked against the date (RFC 9110 does not ask it), only its shape.
 */
const HTTP_DATE =
  /^[A-Z][a-z]{2,8},? (?:(\d\d)[ -]([A-Z][a-z]{2})[ -](\d{4}|\d\d)|([A-Z][a-z]{2}) ([ \d]\d)) (\d\d):(\d\d):(\d\d) (?:GMT|(\d{4}))$/;

/**
 * Milliseconds since the epoch of an HTTP-date in one of RFC 9110's three formats, or
 * `undefined` for anything else (including impossible dates such as 31 February).
 *
 * @example
 * ```ts
 * parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT"); // 784111777000
 * parseHTTPDate("-1"); // undefined
 * ```
 */
export function parseHTTPDate(text: string, now: number = Date.now()): number | undefined {
  const date = HTTP_DATE.exec(text.trim());
  if (date === null || (date[3] === undefined) === (date[9] === undefined)) return undefined;
  let year = Number(date[3] ?? date[9]);
  if (year < 100) {
    // RFC 9110: a two-digit year that looks more than 50 years ahead is in the past century.
    const current = new Date(now).getUTCFullYear();
    year += current - (current % 100);
    if (year > current + 50) year -= 100;
  }
  const month = MONTHS.indexOf(date[2] ?? date[4]!) / 3;
  const day = Number(date[1] ?? date[5]);
  const [h, m, s] = [Number(date[6]), Number(date[7]), Number(date[8])];
  const ms = Date.UTC(year, month, day, h, m, s);
  // Date.UTC rolls 31 February over into March: such a date is not a date.
  const valid = Number.isInteger(month) && h < 24 && m < 60 && s < 61 &&
    new Date(ms).getUTCDate() === day;
  return valid ? ms : undefined;
}
