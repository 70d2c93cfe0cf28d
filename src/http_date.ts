/**
 * A strict HTTP-date parser (RFC 9110 §5.6.7). `Date.parse` accepts almost anything — `-1`,
 * `12 1` and `3/4` are all dates to it, in the past, so a `Retry-After` of garbage became
 * "retry at once". Only the three formats the RFC defines are accepted here.
 *
 * @module
 */

const DAYS = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAYS = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH = `(${MONTHS.join("|")})`;
const TIME = "(\\d\\d):(\\d\\d):(\\d\\d)";
/** `Sun, 06 Nov 1994 08:49:37 GMT` (the preferred format). */
const IMF_FIXDATE = new RegExp(`^${DAYS}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete RFC 850). */
const RFC_850 = new RegExp(`^${LONG_DAYS}, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete asctime). */
const ASCTIME = new RegExp(`^${DAYS} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

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
  const value = text.trim();
  let match = IMF_FIXDATE.exec(value);
  if (match !== null) return build(match[3]!, match[2]!, match[1]!, match.slice(4));
  match = RFC_850.exec(value);
  if (match !== null) {
    // RFC 9110: a two-digit year that looks more than 50 years ahead is in the past century.
    const nowYear = new Date(now).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(match[3]);
    if (year > nowYear + 50) year -= 100;
    return build(String(year), match[2]!, match[1]!, match.slice(4));
  }
  match = ASCTIME.exec(value);
  if (match !== null) return build(match[6]!, match[1]!, match[2]!, match.slice(3, 6));
  return undefined;
}

function build(year: string, month: string, day: string, time: string[]): number | undefined {
  const [h, m, s] = time.map(Number) as [number, number, number];
  const y = Number(year);
  const mon = MONTHS.indexOf(month);
  const d = Number(day.trim());
  if (h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(y, mon, d, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March: such a date is not a date.
  if (new Date(ms).getUTCDate() !== d) return undefined;
  return ms;
}
