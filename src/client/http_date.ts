// A strict HTTP-date parser (RFC 9110 §5.6.7): `Date.parse` takes `-1` or `3/4` for past dates,
// which would turn a garbage `Retry-After` into "retry at once".

const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
// IMF-fixdate and RFC 850 (groups 1–3: day, month, year), asctime (4–5: month, day; 9: year);
// 6–8: the time. Exactly one year must match. The day's name is checked for shape only.
const HTTP_DATE =
  /^[A-Z][a-z]{2,8},? (?:(\d\d)[ -]([A-Z][a-z]{2})[ -](\d{4}|\d\d)|([A-Z][a-z]{2}) ([ \d]\d)) (\d\d):(\d\d):(\d\d) (?:GMT|(\d{4}))$/;

/** Epoch ms of an HTTP-date in one of RFC 9110's three formats, else `undefined`. */
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
