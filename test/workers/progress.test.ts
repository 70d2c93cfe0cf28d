// Progress comments (`x-stopstream-progress: true`) and the demo's caller-drop fault, in
// workerd: what the playground's timeline is drawn from.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RedirectError, StreamProtocolError } from "../../src/core/error_classes.ts";
import { createRelay } from "../../src/relay/app.ts";
import { ProgressEncoder } from "../../src/relay/progress.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import {
  answer,
  chatBody,
  contentOf,
  demoRelay,
  fakeUpstream,
  parseSSE,
  postChat,
  sse,
  sseResponse,
} from "./helpers.ts";
import { contentOfEvents, eventsOf, expectResumedRest, follow, ids } from "./stream_helpers.ts";
import { delay } from "../support/sse.ts";

const PROGRESS = { "x-stopstream-progress": "true" };
const RESUMABLE = { "x-stopstream-resumable": "true" };

/** The progress comments of a body, in order (keep-alives left out). */
function progressOf(raw: string): string[] {
  return parseSSE(raw).comments.map((c) => c.text).filter((text) => text !== "keep-alive");
}

function stream(
  app: ReturnType<typeof demoRelay>["app"],
  fault: string,
  headers: Record<string, string> = PROGRESS,
): Promise<Response> {
  return postChat(app, chatBody({ stream: true }), {
    headers: { "x-demo-fault": fault, ...headers },
  });
}

/** A demo relay whose streams are resumable (the demo runs inside the Durable Object). */
function resumableDemo(options: RelayOptions = {}): ReturnType<typeof demoRelay> {
  return demoRelay({ streams: env.STREAMS, ...options });
}

/** Reads a body whose connection the relay cuts: the text before the cut, and the error. */
async function readUntilCut(response: Response): Promise<{ raw: string; error: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  for (;;) {
    try {
      const { done, value } = await reader.read();
      if (done) return { raw, error: undefined };
      raw += decoder.decode(value, { stream: true });
    } catch (error) {
      return { raw, error };
    }
  }
}

describe("progress comments", () => {
  it("without the header, a retried stream carries keep-alives only, as ever", async () => {
    const { app, requests } = demoRelay();
    const raw = await (await stream(app, "attempt1=status:503", {})).text();
    expect(progressOf(raw)).toEqual([]);
    expect(parseSSE(raw).done).toBe(true);
    expect(requests).toHaveLength(2);
  });

  it("narrate a 503, the wait and the request that answered, before the first event", async () => {
    const { app, requests } = demoRelay();
    const response = await stream(app, "attempt1=status:503");
    expect(response.status).toBe(200);
    const raw = await response.text();
    const notes = progressOf(raw);
    expect(notes).toHaveLength(3);
    expect(notes[0]).toMatch(/^retry attempt=2 delay_ms=\d+ reason=503 t=\d+$/);
    expect(notes[1]).toMatch(/^open attempt=2 status=200 t=\d+$/);
    // The first comment committed the response: its header counted one request, this says two.
    expect(response.headers.get("x-stopstream-attempts")).toBe("1");
    expect(notes[2]).toBe("upstream index=0 attempts=2");
    const body = parseSSE(raw);
    expect(body.comments.find((c) => c.text === notes[1])?.beforeData).toBe(0);
    // What an OpenAI client reads is what it reads without the header.
    const plain = parseSSE(await (await stream(app, "attempt1=status:503", {})).text());
    expect(contentOf(body)).toBe(contentOf(plain));
    expect(body.done).toBe(true);
    expect(requests).toHaveLength(4);
  });

  it("a Retry-After is named and waited: the next request opens after it", async () => {
    const { app } = demoRelay();
    const raw = await (await stream(app, "attempt1=status:429;retry-after-ms:120")).text();
    const [retry, open] = progressOf(raw);
    const fields = (note: string | undefined) =>
      Object.fromEntries((note ?? "").split(" ").slice(1).map((f) => f.split("=")));
    expect(retry).toMatch(/^retry attempt=2 /);
    expect(fields(retry)).toEqual(
      expect.objectContaining({ delay_ms: "120", reason: "429", retry_after_ms: "120" }),
    );
    expect(open).toMatch(/^open attempt=2 status=200 /);
    expect(Number(fields(open).t) - Number(fields(retry).t)).toBeGreaterThanOrEqual(120);
  });

  it("a stall before the first event is named by the timeout that caught it", async () => {
    const { app, requests } = demoRelay({ timeouts: { firstEventMs: 60 } });
    const raw = await (await stream(app, "attempt1=stall-ms:400;stall-after:0")).text();
    const notes = progressOf(raw);
    expect(notes[0]).toMatch(/^open attempt=1 status=200 t=\d+$/);
    expect(notes[1]).toMatch(
      /^retry attempt=2 delay_ms=\d+ reason=timeout phase=first-event timeout_ms=60 t=\d+$/,
    );
    expect(notes[2]).toMatch(/^open attempt=2 status=200 /);
    expect(parseSSE(raw).done).toBe(true);
    expect(requests).toHaveLength(2);
  });

  it("a 4xx before any comment keeps its HTTP status; one after them ends the stream", async () => {
    const { app } = demoRelay();
    const refused = await stream(app, "status=422");
    expect(refused.status).toBe(422);
    expect(refused.headers.get("content-type")).toContain("application/json");
    // The first comment was a write: the 200 had gone out when the 400 came.
    const late = await stream(app, "attempt1=status:503,attempt2=status:400");
    expect(late.status).toBe(200);
    const body = parseSSE(await late.text());
    expect(body.comments[0]?.text).toMatch(/^retry attempt=2 .*reason=503/);
    expect(body.done).toBe(false);
    expect(body.data.at(-1)).toEqual({
      error: expect.objectContaining({ type: expect.any(String) }),
    });
  });

  it("narrate a fallback, and carry no upstream text", async () => {
    const upstream = fakeUpstream((request) =>
      request.url.startsWith("https://primary.test/")
        ? new Response(JSON.stringify({ error: { message: "down at 10.0.0.7" } }), {
          status: 503,
        })
        : sseResponse([
          sse({ choices: [{ index: 0, delta: { content: "hi" } }] }),
          "data: [DONE]\n\n",
        ])
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://primary.test/v1" }, { baseURL: "https://fallback.test/v1" }],
      maxRetries: 0,
      fetch: upstream.fetch,
    });
    const raw = await (await stream(app, "")).text();
    expect(progressOf(raw)).toEqual([
      expect.stringMatching(/^fallback attempt=2 reason=503 t=\d+$/),
      expect.stringMatching(/^open attempt=2 status=200 t=\d+$/),
    ]);
    expect(raw).not.toContain("10.0.0.7");
    expect(upstream.seen).toHaveLength(2);
  });
});

describe("progress comments: a resume, and failures by kind", () => {
  // An upstream that keeps its streams running (another stopstream relay): ids on its events,
  // `x-stopstream-stream-id` on its response, `GET /v1/streams/{id}` for the rest.
  const STREAM_ID = "0123456789abcdef0123456789abcdef";
  const CHUNKS = ["Hel", "lo", " the", "re"].map((text) =>
    sse({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })
  );
  const EVENTS = [
    ...CHUNKS,
    sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    "data: [DONE]\n\n",
  ].map((block, i) => `id: ${i + 1}\n${block}`);
  const encoder = new TextEncoder();

  /** The events from `from` on, cut like a lost connection after `cutAfter` of them. */
  function body(from: number, cutAfter = Infinity): ReadableStream<Uint8Array> {
    const blocks = EVENTS.slice(from, from + cutAfter);
    const cut = from + cutAfter < EVENTS.length;
    // One block per pull, so the reader has taken them all before the cut (an error discards
    // whatever is still queued).
    return new ReadableStream({
      pull(controller) {
        const block = blocks.shift();
        if (block !== undefined) controller.enqueue(encoder.encode(block));
        else if (cut) controller.error(new TypeError("terminated"));
        else controller.close();
      },
    });
  }

  it("a refused connection is `connection`; a drop of a resumable upstream is a `resume` after its last event", async () => {
    const seen: string[] = [];
    const upstream = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      if (seen.length === 1) return Promise.reject(new TypeError("fetch failed")); // no answer
      const headers = { "content-type": "text/event-stream", "x-stopstream-stream-id": STREAM_ID };
      const from = request.method === "POST"
        ? body(0, 2)
        : body(Number(request.headers.get("last-event-id")));
      return Promise.resolve(new Response(from, { headers }));
    };
    const app = createRelay({
      upstreams: [{ baseURL: "https://relay.upstream.test/v1" }],
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      fetch: upstream as typeof fetch,
    });
    const raw = await (await stream(app, "")).text();
    expect(progressOf(raw)).toEqual([
      expect.stringMatching(/^retry attempt=2 delay_ms=\d+ reason=connection t=\d+$/),
      expect.stringMatching(/^open attempt=2 status=200 t=\d+$/),
      "upstream index=0 attempts=2", // the header, sent with the first comment, said 1
      expect.stringMatching(/^resume attempt=3 after=2 delay_ms=\d+ reason=connection t=\d+$/),
      expect.stringMatching(/^open attempt=3 status=200 t=\d+$/),
    ]);
    const answer = parseSSE(raw);
    expect(contentOf(answer)).toBe("Hello there");
    expect(answer.done).toBe(true);
    expect(seen).toEqual([
      "POST /v1/chat/completions",
      "POST /v1/chat/completions",
      `GET /v1/streams/${STREAM_ID}`,
    ]);
  });

  it("an error event before content is `upstream_error`, and carries none of its text", async () => {
    const overloaded = sse({ error: { message: "overloaded at 10.0.0.7", type: "server_error" } });
    const upstream = fakeUpstream((_request, n) =>
      n === 1 ? sseResponse([overloaded]) : answer("ok")
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://primary.test/v1" }],
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      fetch: upstream.fetch,
    });
    const raw = await (await stream(app, "")).text();
    expect(progressOf(raw)).toEqual([
      expect.stringMatching(/^open attempt=1 status=200 t=\d+$/),
      expect.stringMatching(/^retry attempt=2 delay_ms=\d+ reason=upstream_error t=\d+$/),
      expect.stringMatching(/^open attempt=2 status=200 t=\d+$/),
      "upstream index=0 attempts=2",
    ]);
    expect(contentOf(parseSSE(raw))).toBe("ok");
    expect(raw).not.toContain("10.0.0.7");
  });

  // No retry, resume or fallback follows these today (they are not transient), but the words
  // are the documented vocabulary: a reader matching on them must not meet another.
  it.each([
    ["protocol", new StreamProtocolError("not a stream")],
    ["redirect", new RedirectError("cross-origin", 302, "https://elsewhere.test")],
    ["error", new TypeError("anything else")],
  ])("reason=%s names its kind of failure", (word, error) => {
    const encoder = new ProgressEncoder("chatcmpl-1", "demo", false);
    const note = encoder.encode({ type: "retry", attempt: 2, delayMs: 5, error });
    // One line, no blank line after it: a blank line alone is an empty message to some clients.
    expect(note).toMatch(new RegExp(`^: retry attempt=2 delay_ms=5 reason=${word} t=\\d+\n$`));
  });
});

describe("progress comments on a resumable stream", () => {
  it("come before event 1 without ids; a reader from the start gets them, one resuming does not", async () => {
    const { app } = resumableDemo();
    const response = await stream(app, "attempt1=status:503", { ...PROGRESS, ...RESUMABLE });
    const id = response.headers.get("x-stopstream-stream-id")!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const raw = await response.text();
    const notes = progressOf(raw);
    expect(notes).toEqual([
      expect.stringMatching(/^retry attempt=2 delay_ms=\d+ reason=503 t=\d+$/),
      expect.stringMatching(/^open attempt=2 status=200 t=\d+$/),
      "upstream index=0 attempts=2",
    ]);
    expect(raw.indexOf(`: ${notes[1]}`)).toBeLessThan(raw.indexOf("id: 1\n"));
    // Ids number events only: every `id:` line is followed by the event's `data:`.
    const lines = raw.split("\n");
    lines.forEach((line, i) => {
      if (line.startsWith("id:")) expect(lines[i + 1]).toMatch(/^data: /);
    });
    const events = eventsOf(raw);
    expect(events.map((e) => e.id)).toEqual(ids(events.length));
    expect(events.at(-1)?.data).toBe("[DONE]");
    const replay = await (await follow(app, id)).text();
    expect(progressOf(replay)).toEqual(notes);
    expect(eventsOf(replay)).toEqual(events);
    const resumed = await (await follow(app, id, 2)).text();
    expect(progressOf(resumed)).toEqual([]);
    expect(eventsOf(resumed)).toEqual(events.slice(2));
  });
});

describe("the demo's caller-drop fault", () => {
  it("cuts a resumable stream's caller after N events; the answer runs on and resumes whole", async () => {
    const { app } = resumableDemo();
    const response = await stream(app, "caller-drop-after=3,words=30", RESUMABLE);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const { raw, error } = await readUntilCut(response);
    expect(error).toBeDefined();
    const first = eventsOf(raw);
    const whole = await expectResumedRest(app, id, first, 3);
    expect(contentOfEvents(whole).split(" ").length).toBeGreaterThanOrEqual(30);
    const status = await follow(app, id, undefined, { accept: "application/json" });
    expect(await status.json()).toEqual(expect.objectContaining({ status: "completed" }));
  });

  it("cuts any other stream too, and its upstream request stops with it", async () => {
    const { app, requests, cancelled } = demoRelay();
    const response = await stream(app, "caller-drop-after=3,words=200", {});
    const { raw, error } = await readUntilCut(response);
    expect(error).toBeDefined();
    expect(parseSSE(raw).data).toHaveLength(3);
    const { wordsSent } = await cancelled;
    expect(wordsSent).toBeLessThan(200);
    expect(requests).toHaveLength(1);
  });

  it("stops the upstream at once even while the upstream is silent (no write to fail)", async () => {
    // workerd's native pipe learns of a cancel only at its next write: the cut must stop the
    // call itself, not wait for the next word (a minute away here) or keep-alive (15 s).
    const { app, cancelled } = demoRelay();
    const response = await stream(app, "caller-drop-after=3,stall-after=3,stall-ms=60000", {});
    const { raw, error } = await readUntilCut(response);
    expect(error).toBeDefined();
    expect(parseSSE(raw).data).toHaveLength(3);
    const cutAt = Date.now();
    const outcome = await Promise.race([
      cancelled.then(({ wordsSent }) => ({ wordsSent, afterMs: Date.now() - cutAt })),
      delay(5_000).then(() => "upstream still running 5 s after the cut"),
    ]);
    expect(outcome).toMatchObject({ wordsSent: 3 });
    expect((outcome as { afterMs: number }).afterMs).toBeLessThan(2_000);
  });

  it("cuts only the POST that made the stream: a resume is never cut", async () => {
    const { app } = resumableDemo();
    const response = await stream(app, "caller-drop-after=2,words=10", RESUMABLE);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readUntilCut(response);
    const replay = await app.request(`http://relay.test/v1/streams/${id}`, {
      headers: { "x-demo-fault": "caller-drop-after=1" },
    });
    expect(eventsOf(await replay.text()).at(-1)?.data).toBe("[DONE]");
  });
});
