// The relay's three inbound routes side by side, in one Node process (not part of `npm run bench`,
// which runs the relay in workerd): time to first delta and the time of a 100k-delta stream for
// `/v1/chat/completions` (chat upstream, the baseline), `/v1/messages` and `/v1/responses`, each
// passed through (an upstream of its own protocol) and translated (a chat upstream). The upstream
// is an in-process `fetch` answering a prepared body, so the figures are the relay's own work.
//
//   npm run build && node bench/inbound_routes.mjs [--deltas 100000] [--rounds 5]

import { createRelay } from "../dist/relay/app.js";

const args = Object.fromEntries(
  process.argv.slice(2).flatMap((a, i, all) =>
    a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : []
  ),
);
const DELTAS = Number(args.deltas ?? 100_000);
const ROUNDS = Number(args.rounds ?? 5);
const WORD = "word ";

function chatBody(n) {
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":';
  const delta =
    `data: ${head}[{"index":0,"delta":{"content":"${WORD}"},"finish_reason":null}]}\n\n`;
  return `data: ${head}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n` +
    delta.repeat(n) +
    `data: ${head}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
}

function anthropicBody(n) {
  const ev = (name, data) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  return ev("message_start", {
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  }) + ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: WORD } }).repeat(n) +
    ev("content_block_stop", { index: 0 }) +
    ev("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: n } }) +
    ev("message_stop", {});
}

function responsesBody(n) {
  const ev = (name, data) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const response = {
    id: "resp_1",
    object: "response",
    status: "in_progress",
    model: "m",
    output: [],
  };
  const item = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "in_progress",
    content: [],
  };
  return ev("response.created", { response }) +
    ev("response.output_item.added", { output_index: 0, item }) +
    ev("response.output_text.delta", {
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: WORD,
    }).repeat(n) +
    ev("response.output_item.done", { output_index: 0, item: { ...item, status: "completed" } }) +
    ev("response.completed", {
      response: {
        ...response,
        status: "completed",
        usage: { input_tokens: 1, output_tokens: n, total_tokens: n + 1 },
      },
    });
}

const BODIES = {
  "openai-chat": chatBody,
  "anthropic-messages": anthropicBody,
  "openai-responses": responsesBody,
};
const REQUESTS = {
  "/v1/chat/completions": { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] },
  "/v1/messages": {
    model: "m",
    stream: true,
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  },
  "/v1/responses": { model: "m", stream: true, input: "hi" },
};
const CASES = [
  ["/v1/chat/completions", "openai-chat", "baseline"],
  ["/v1/messages", "anthropic-messages", "pass-through"],
  ["/v1/messages", "openai-chat", "translated"],
  ["/v1/responses", "openai-responses", "pass-through"],
  ["/v1/responses", "openai-chat", "translated"],
];

/** Splits the body into 16 KiB pieces, as a network would deliver it. */
function pieces(text) {
  const bytes = new TextEncoder().encode(text);
  const out = [];
  for (let i = 0; i < bytes.length; i += 16384) out.push(bytes.subarray(i, i + 16384));
  return out;
}

async function once(path, protocol, n) {
  const chunks = pieces(BODIES[protocol](n));
  const app = createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "k", protocol }],
    maxRetries: 0,
    fetch: () => {
      let i = 0;
      const body = new ReadableStream({
        pull(c) {
          if (i < chunks.length) c.enqueue(chunks[i++]);
          else c.close();
        },
      });
      return Promise.resolve(
        new Response(body, { headers: { "content-type": "text/event-stream" } }),
      );
    },
  });
  const start = performance.now();
  const response = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(REQUESTS[path]),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let first;
  let tail = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first === undefined) {
      tail += decoder.decode(value, { stream: true });
      if (tail.includes(WORD)) first = performance.now() - start;
    }
  }
  return { first, total: performance.now() - start };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [path, protocol, kind] of CASES) {
  await once(path, protocol, 1000); // warm-up
  const firsts = [];
  const totals = [];
  for (let r = 0; r < ROUNDS; r++) {
    firsts.push((await once(path, protocol, 10)).first);
    totals.push((await once(path, protocol, DELTAS)).total);
  }
  rows.push({
    route: path,
    upstream: protocol,
    kind,
    ttfdMs: median(firsts),
    totalMs: median(totals),
  });
}
const base = rows[0].totalMs;
for (const row of rows) {
  process.stdout.write(
    `${row.route.padEnd(22)} ${row.upstream.padEnd(19)} ${row.kind.padEnd(13)} ` +
      `first delta ${row.ttfdMs.toFixed(2)} ms · ${DELTAS} deltas ${row.totalMs.toFixed(0)} ms ` +
      `(${(row.totalMs / base).toFixed(2)}× the chat route)\n`,
  );
}
