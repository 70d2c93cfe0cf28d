// Resumable streams on `POST /v1/messages` and `POST /v1/responses` in workerd: the stream's
// events are the caller's protocol's, numbered, and `GET /v1/streams/{id}` replays them; a
// failure after the first token ends the stream with that protocol's error event.
import { describe, expect, it } from "vitest";
import { streamsRelay } from "./stream_helpers.ts";

const ROUTES = [
  {
    path: "/v1/messages",
    body: {
      model: "m",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    },
    first: "message_start",
    last: "message_stop",
    failed: ["error"],
  },
  {
    path: "/v1/responses",
    body: { model: "m", stream: true, input: "hi" },
    first: "response.created",
    last: "response.completed",
    failed: ["response.failed", "error"],
  },
];

/** Each event's id and name (`event:`), comments left out. */
function named(raw: string): Array<{ id: string | undefined; event: string; data: string }> {
  const out: Array<{ id: string | undefined; event: string; data: string }> = [];
  for (const block of raw.split("\n\n")) {
    let id: string | undefined;
    let event = "";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data = line.slice(6);
    }
    if (data !== "") out.push({ id, event, data });
  }
  return out;
}

function post(app: ReturnType<typeof streamsRelay>["app"], path: string, body: unknown) {
  return Promise.resolve(app.request(`http://relay.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-stopstream-resumable": "true" },
    body: JSON.stringify(body),
  }));
}

describe.each(ROUTES)("a resumable stream on $path", ({ path, body, first, last, failed }) => {
  it("numbers the protocol's own events, and a reader replays them", async () => {
    const { app } = streamsRelay("attempt1=status:503");
    const response = await post(app, path, body);
    expect(response.status).toBe(200);
    const id = response.headers.get("x-stopstream-stream-id");
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const live = named(await response.text());
    expect(live[0]?.event).toBe(first);
    expect(live.at(-1)?.event).toBe(last);
    expect(live.map((e) => e.id)).toEqual(live.map((_, i) => String(i + 1)));
    for (const e of live) expect(JSON.parse(e.data)).toMatchObject({ type: e.event });
    const replay = named(await (await app.request(`http://relay.test/v1/streams/${id}`)).text());
    expect(replay).toEqual(live);
    const rest = await app.request(`http://relay.test/v1/streams/${id}`, {
      headers: { "last-event-id": "3" },
    });
    expect(named(await rest.text())).toEqual(live.slice(3));
  });

  it("a drop after the first token ends it with the protocol's error, no success end", async () => {
    const { app } = streamsRelay("drop-after=3");
    const response = await post(app, path, body);
    expect(response.status).toBe(200);
    const events = named(await response.text());
    expect(events[0]?.event).toBe(first);
    expect(events.slice(-failed.length).map((e) => e.event)).toEqual(failed);
    expect(events.map((e) => e.event)).not.toContain(last);
  });
});
