import { describe, expect, test } from "vitest";
import { parseHTTPDate, retryAfterMs } from "../../src/client/retry_policy.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import { errorBody, OK, options } from "../support/chat.ts";
import { jsonReply, useMockUpstream } from "../support/msw.ts";
import { collect, ofType } from "../support/sse.ts";

const upstream = useMockUpstream();
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("Retry-After is parsed strictly", () => {
  test.each([
    ["-1"],
    ["12 1"],
    ["3/4"],
    ["1e3"],
    ["12abc"],
    ["0x10"],
    ["Infinity"],
    [""],
    ["+5"],
    ["5."],
    ["Thu, 15 Jan 2026 12:00:05"],
    ["Thu, 15 Jan 2026 12:00:05 UTC"],
    ["2026-01-15T12:00:05Z"],
    ["Thu, 31 Feb 2026 12:00:05 GMT"],
    ["Thu, 15 Jan 2026 24:00:05 GMT"],
    ["thu, 15 jan 2026 12:00:05 gmt"],
  ])("retry-after %j is ignored", (value) => {
    expect(retryAfterMs({ "retry-after": value }, NOW)).toBeUndefined();
  });

  test.each([["-5"], ["5ms"], ["1e3"], ["NaN"], ["3/4"]])(
    "retry-after-ms %j is ignored",
    (value) => {
      expect(retryAfterMs({ "retry-after-ms": value }, NOW)).toBeUndefined();
      // …and a valid retry-after next to it still counts.
      expect(retryAfterMs({ "retry-after-ms": value, "retry-after": "2" }, NOW)).toBe(2000);
    },
  );

  test("non-negative seconds and milliseconds, with decimals, are accepted", () => {
    expect(retryAfterMs({ "retry-after": "0" }, NOW)).toBe(0);
    expect(retryAfterMs({ "retry-after": " 7 " }, NOW)).toBe(7000);
    expect(retryAfterMs({ "retry-after": "1.5" }, NOW)).toBe(1500);
    expect(retryAfterMs({ "retry-after-ms": "250" }, NOW)).toBe(250);
    expect(retryAfterMs({ "retry-after-ms": "12.5" }, NOW)).toBe(12.5);
  });

  test.each([
    ["IMF-fixdate", "Thu, 15 Jan 2026 12:00:05 GMT"],
    ["RFC 850", "Thursday, 15-Jan-26 12:00:05 GMT"],
    ["asctime", "Thu Jan 15 12:00:05 2026"],
  ])("an HTTP-date in %s format is accepted", (_format, value) => {
    expect(parseHTTPDate(value, NOW)).toBe(NOW + 5000);
    expect(retryAfterMs({ "retry-after": value }, NOW)).toBe(5000);
  });

  test("asctime pads a one-digit day with a space; RFC 850 years more than 50 ahead are past", () => {
    expect(parseHTTPDate("Sun Nov  6 08:49:37 1994")).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).toBe(
      Date.UTC(1994, 10, 6, 8, 49, 37),
    );
    expect(parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT", Date.UTC(2050, 0, 1))).toBe(
      Date.UTC(2094, 10, 6, 8, 49, 37),
    );
  });

  // docs/retries.md: lenient where the date is unambiguous either way, and only there.
  test.each([
    ["a day's name that is not the date's", "Mon, 15 Jan 2026 12:00:05 GMT"],
    ["IMF-fixdate with RFC 850's dashes", "Thu, 15-Jan-2026 12:00:05 GMT"],
    ["RFC 850 with spaces and a four-digit year", "Thursday, 15 Jan 2026 12:00:05 GMT"],
    ["IMF-fixdate with a two-digit year", "Thu, 15 Jan 26 12:00:05 GMT"],
    ["separators mixed within one date", "Thu, 15-Jan 2026 12:00:05 GMT"],
  ])("accepted, leniently: %s", (_case, value) => {
    expect(parseHTTPDate(value, NOW)).toBe(NOW + 5000);
  });

  test.each([
    ["a year both before the time and at the end", "Thu, 15 Jan 2026 12:00:05 2026"],
    ["asctime with GMT", "Thu Jan 15 12:00:05 GMT"],
    ["a three-digit year", "Thu, 15 Jan 026 12:00:05 GMT"],
    ["no day's name", "15 Jan 2026 12:00:05 GMT"],
  ])("refused even so: %s", (_case, value) => {
    expect(parseHTTPDate(value, NOW)).toBeUndefined();
  });

  test("a malformed Date header falls back to the local clock", () => {
    const headers = { "retry-after": "Thu, 15 Jan 2026 12:00:05 GMT", date: "yesterday" };
    expect(retryAfterMs(headers, NOW)).toBe(5000);
  });

  test("a bad Retry-After gets the normal backoff, not an immediate retry", async () => {
    upstream.reply(
      jsonReply(503, errorBody("busy"), { "retry-after": "-1" }),
      jsonReply(503, errorBody("busy"), { "retry-after": "3/4", "retry-after-ms": "-5" }),
      OK,
    );
    const { events, result } = await collect(
      streamChat(options({ retry: { initialDelayMs: 40, maxDelayMs: 80 } })),
    );
    const delays = ofType(events, "retry").map((r) => r.delayMs);
    expect(delays).toHaveLength(2);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(40);
    expect(result?.content).toBe("ok");
    expect(upstream.count).toBe(3);
  });
});
