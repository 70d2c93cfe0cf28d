/**
 * Generic SSE clients, unmodified, against the relay as `npm start` serves it (workerd with its
 * `RelayStream` Durable Objects, the demo model, a loopback socket): `@microsoft/fetch-event-source`
 * and the `eventsource` package (issue #31). The relay writes comments before the first token
 * (its commit and its keep-alives) and, asked for, progress comments; a finished stream asked for
 * after its last event is a 204, the SSE standard's word for "do not reconnect".
 */
import { fetchEventSource } from "@microsoft/fetch-event-source";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedRelay, startRelay } from "../support/npm_start.ts";

let relay: StartedRelay;

beforeAll(async () => {
  relay = await startRelay();
  // fetch-event-source is a browser library: it calls `window.setTimeout` and
  // `document.removeEventListener` even with `openWhenHidden`.
  Object.assign(globalThis, {
    window: globalThis,
    document: { hidden: false, addEventListener() {}, removeEventListener() {} },
  });
});

afterAll(async () => {
  await relay?.stop();
});

const BODY = JSON.stringify({
  model: "demo",
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});

/** The answer's text from a list of `data` fields, `[DONE]` last. */
function textOf(data: string[]): string {
  expect(data.at(-1)).toBe("[DONE]");
  return data.slice(0, -1).map((d) => {
    const chunk = JSON.parse(d) as { choices: Array<{ delta: { content?: string } }> };
    return chunk.choices[0]?.delta.content ?? "";
  }).join("");
}

/** Starts a resumable stream and reads it to its end; resolves with its id and raw text. */
async function finishedStream(): Promise<{ id: string; raw: string }> {
  const response = await fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-stopstream-resumable": "true" },
    body: BODY,
  });
  expect(response.status).toBe(200);
  const id = response.headers.get("x-stopstream-stream-id");
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  return { id: id!, raw: await response.text() };
}

describe("@microsoft/fetch-event-source", () => {
  // A slow first token: the relay commits at 1 s with a comment, then writes one every 400 ms;
  // a 503 first and progress comments add the relay's narration.
  const SLOW = { "x-demo-fault": "attempt1=status:503,attempt2=first-byte-ms:1500" };

  it("the relay's answer to a slow, retried call begins with comments", async () => {
    const response = await fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-stopstream-progress": "true", ...SLOW },
      body: BODY,
    });
    const raw = await response.text();
    // The case the next test is about: comments come before any event.
    expect(raw).toMatch(/^: /);
    expect(raw).toMatch(/^: keep-alive$/m);
    expect(raw).toMatch(/^: retry attempt=2 /m);
  });

  it("hands onmessage every event and nothing else: no empty message for a comment", async () => {
    const data: string[] = [];
    let opened = 0;
    await fetchEventSource(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-stopstream-progress": "true", ...SLOW },
      body: BODY,
      openWhenHidden: true,
      onopen: (response) => {
        opened++;
        expect(response.status).toBe(200);
        return Promise.resolve();
      },
      onmessage: (message) => data.push(message.data),
      onerror: (error: unknown) => {
        throw error; // no retry: a failure fails the test
      },
    });
    expect(opened).toBe(1);
    expect(data).not.toContain("");
    expect(textOf(data)).toMatch(/^You said: "Hi"\./);
  });

  it("follows a resumable stream by id, from its start", async () => {
    const { id, raw } = await finishedStream();
    const data: string[] = [];
    await fetchEventSource(`${relay.url}/v1/streams/${id}`, {
      openWhenHidden: true,
      onmessage: (message) => data.push(message.data),
      onerror: (error: unknown) => {
        throw error;
      },
    });
    expect(data).not.toContain("");
    expect(data.length).toBe(raw.match(/^data: /gm)?.length);
    expect(textOf(data)).toMatch(/^You said: "Hi"\./);
  });
});

describe("the eventsource package", () => {
  /** An EventSource on `url` that notes every response it got and every event. */
  function open(url: string) {
    const statuses: number[] = [];
    const data: string[] = [];
    const source = new EventSource(url, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
    source.addEventListener("message", (event) => data.push(event.data));
    return { source, statuses, data };
  }

  it("after [DONE] it reconnects once with Last-Event-ID, gets a 204 and stops", async () => {
    const { id } = await finishedStream();
    const { source, statuses, data } = open(`${relay.url}/v1/streams/${id}`);
    try {
      // The first error is the end of the first connection (EventSource then reconnects, 3 s
      // later, after the last id it saw); the second is how that reconnect ended.
      const errors: Array<{ state: number; code: number | undefined }> = [];
      await new Promise<void>((resolve) => {
        source.addEventListener("error", (event) => {
          errors.push({ state: source.readyState, code: event.code });
          if (errors.length === 2) resolve();
        });
      });
      expect(textOf(data)).toMatch(/^You said: "Hi"\./);
      expect(errors).toEqual([
        { state: EventSource.CONNECTING, code: undefined },
        { state: EventSource.CLOSED, code: 204 },
      ]);
      expect(statuses).toEqual([200, 204]);
    } finally {
      source.close();
    }
  });

  it("closed on [DONE], as docs/relay.md says, it makes one request", async () => {
    const { id } = await finishedStream();
    const { source, statuses, data } = open(`${relay.url}/v1/streams/${id}`);
    await new Promise<void>((resolve, reject) => {
      source.addEventListener("message", (event) => {
        if (event.data !== "[DONE]") return;
        source.close();
        resolve();
      });
      source.addEventListener("error", () => reject(new Error("the stream failed")));
    });
    expect(textOf(data)).toMatch(/^You said: "Hi"\./);
    expect(statuses).toEqual([200]);
  });
});

describe("GET /v1/streams/{id} of a finished stream", () => {
  it("is 204 at or after its last event id, the events after an earlier one, 404 unknown", async () => {
    const { id, raw } = await finishedStream();
    const count = raw.match(/^id: /gm)?.length ?? 0;
    expect(count).toBeGreaterThan(3);
    const follow = (after: number) =>
      fetch(`${relay.url}/v1/streams/${id}`, { headers: { "last-event-id": String(after) } });
    for (const after of [count, count + 1]) {
      const response = await follow(after);
      expect(response.status, `after ${after} of ${count}`).toBe(204);
      expect(await response.text()).toBe("");
    }
    const tail = await follow(count - 1);
    expect(tail.status).toBe(200);
    expect(await tail.text()).toMatch(new RegExp(`^id: ${count}\\ndata: \\[DONE\\]\\n\\n$`, "m"));
    const unknown = await fetch(`${relay.url}/v1/streams/${"0".repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: expect.objectContaining({ code: "stream_not_found" }),
    });
  });
});
