/**
 * A strict HTTP-date parser (RFC 9110 §5.6.7). `Date.parse` accepts almost anything — `-1`,
 * `12 1` and `3/4` are all dates to it, in the past, so a `Retry-After` of garbage became
 * "retry at once". Only the three formats the RFC defines are accepted here.
 *
 * @module
 */

const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const MONTH = "(?<m>[A-Z][a-z]{2})";
const TIME = "(?<h>\\d\\d):(?<i>\\d\\d):(?<s>\\d\\d)";
const FORMATS = [
  // IMF-fixdate (the preferred one): Sun, 06 Nov 1994 08:49:37 GMT
  new RegExp(`^${DAY}, (?<d>\\d\\d) ${MONTH} (?<y>\\d{4}) ${TIME} GMT$`),
  // obsolete RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  new RegExp(
    `^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<d>\\d\\d)-${MONTH}-(?<y>\\d\\d) ${TIME} GMT$`,
  ),
  // obsolete asctime: Sun Nov  6 08:49:37 1994
  new RegExp(`^${DAY} ${MONTH} (?<d>[ \\d]\\d) ${TIME} (?<y>\\d{4})$`),
];

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
  for (const format of FORMATS) {
    const date = format.exec(text.trim())?.groups;
    if (date === undefined) continue;
    let year = Number(date.y);
    if (year < 100) {
      // RFC 9110: a two-digit year that looks more than 50 years ahead is in the past century.
      const current = new Date(now).getUTCFullYear();
      year += current - (current % 100);
      if (year > current + 50) year -= 100;
    }
    const month = MONTHS.indexOf(date.m!) / 3;
    const day = Number(date.d);
    const [h, m, s] = [Number(date.h), Number(date.i), Number(date.s)];
    const ms = Date.UTC(year, month, day, h, m, s);
    // Date.UTC rolls 31 February over into March: such a date is not a date.
    const valid = Number.isInteger(month) && h < 24 && m < 60 && s < 61 &&
      new Date(ms).getUTCDate() === day;
    return valid ? ms : undefined;
  }
  return undefined;
}
