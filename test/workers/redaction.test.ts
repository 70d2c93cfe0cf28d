/**
 * The relay redacts before it cuts: an upstream that echoes the relay's key anywhere around the
 * 500-character cut of the messages it passes on leaks no 8-character prefix of it, in an error
 * body, an error event or a log line.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { chatBody, fakeUpstream, postChat, sse, sseResponse } from "./helpers.ts";
import { ANTHROPIC_STREAM } from "./protocol_streams.ts";

const KEY = "sk-ant-api03-Zq3Xv9Lm2Rt8Wy4Nb6Hc1Kd5Fg7Jp0Ts";
const HEAD = KEY.slice(0, 8);

/** Positions that put the key across `cut`, from wholly before it to wholly after. */
function across(cut: number): number[] {
  return Array.from({ length: KEY.length + 2 }, (_, i) => cut - KEY.length - 1 + i);
}

/** Everything the relay logs while `run` runs. */
async function logged(run: () => Promise<void>): Promise<string> {
  const lines: unknown[][] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => lines.push(args));
  }
  await run();
  return lines.map((args) => args.map(String).join(" ")).join("\n");
}

afterEach(() => vi.restoreAllMocks());

function relayFor(respond: () => Response) {
  const upstream = fakeUpstream(respond);
  return createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: KEY, protocol: "anthropic-messages" }],
    fetch: upstream.fetch,
    maxRetries: 0,
  });
}

describe("redaction happens before the cut", () => {
  it("an upstream 4xx message echoing the key, across the 500-character cut", async () => {
    const log = await logged(async () => {
      for (const at of across(500)) {
        const app = relayFor(() =>
          Response.json({
            type: "error",
            error: { type: "invalid_request_error", message: "m".repeat(at) + KEY + " rest" },
          }, { status: 400 })
        );
        for (const stream of [true, false]) {
          const response = await postChat(app, chatBody({ stream }));
          expect(response.status).toBe(400);
          expect(await response.text()).not.toContain(HEAD);
        }
      }
    });
    expect(log).not.toContain(HEAD);
  });

  it("a text or HTML body echoing the key, across the 200-character log cut and the old 500 cut", async () => {
    const log = await logged(async () => {
      for (const at of [...across(200), ...across(500)]) {
        for (
          const [status, type] of [[400, "text/plain"], [503, "text/html"], [200, "text/html"]]
        ) {
          const app = relayFor(() =>
            new Response("t".repeat(at) + KEY + " rest", {
              status: status as number,
              headers: { "content-type": type as string },
            })
          );
          const response = await postChat(app, chatBody({ stream: true }));
          expect(response.status).toBe(status === 400 ? 400 : 502);
          const text = await response.text();
          expect(text).not.toContain(HEAD);
          expect(text).not.toContain("ttt"); // not echoed at all
        }
      }
    });
    expect(log).toContain("ttt"); // logged, as an excerpt
    expect(log).not.toContain(HEAD);
  });

  it("an upstream 5xx message echoing the key, across the cut", async () => {
    const log = await logged(async () => {
      for (const at of across(500 - "The upstream answered HTTP 529: ".length)) {
        const app = relayFor(() =>
          Response.json({
            type: "error",
            error: { type: "overloaded_error", message: "m".repeat(at) + KEY },
          }, { status: 529 })
        );
        const response = await postChat(app, chatBody({ stream: true }));
        expect(response.status).toBe(502);
        expect(await response.text()).not.toContain(HEAD);
      }
    });
    expect(log).not.toContain(HEAD);
  });

  it("an in-stream error after content echoing the key: the error event, across the cut", async () => {
    const log = await logged(async () => {
      for (const at of across(500)) {
        const app = relayFor(() =>
          sseResponse([
            // Everything up to the first text delta, then the error.
            ...ANTHROPIC_STREAM.slice(0, 6),
            sse(
              { type: "error", error: { type: "api_error", message: "m".repeat(at) + KEY } },
              "error",
            ),
          ])
        );
        const response = await postChat(app, chatBody({ stream: true }));
        const text = await response.text();
        expect(text).toContain('"error"');
        expect(text).not.toContain(HEAD);
      }
    });
    expect(log).not.toContain(HEAD);
  });
});
