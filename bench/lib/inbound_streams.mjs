// The inbound-routes workload (issue #28): the relay's three inbound routes, each passed through
// (an upstream of the route's own protocol) or translated (a chat upstream), next to the chat
// route on a chat upstream. The relay runs in-process (`createRelay`, as a Node app mounts it);
// its upstream is an in-process `fetch` answering a prepared body in 16 KiB pieces, so what is
// timed is the relay's own work. Shared by bench/workers/inbound.mjs (child) and
// bench/lib/inbound_bench.mjs (parent).

/** Every delta's text; the answer is `WORD.repeat(n)`. */
export const WORD = "word ";

/** The cases in table order; `chat` is the reference for the ratios. */
export const CASES = [
  { id: "chat", route: "/v1/chat/completions", upstream: "openai-chat", kind: "chat route" },
  { id: "messages", route: "/v1/messages", upstream: "anthropic-messages", kind: "pass-through" },
  { id: "messages-chat", route: "/v1/messages", upstream: "openai-chat", kind: "translated" },
  { id: "responses", route: "/v1/responses", upstream: "openai-responses", kind: "pass-through" },
  { id: "responses-chat", route: "/v1/responses", upstream: "openai-chat", kind: "translated" },
];

/** The client protocol each route speaks, and the event that ends its answer. */
const ROUTES = {
  "/v1/chat/completions": {
    protocol: "openai-chat",
    last: "data: [DONE]",
    body: { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] },
  },
  "/v1/messages": {
    protocol: "anthropic-messages",
    last: "event: message_stop",
    body: { model: "m", stream: true, max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
  },
  "/v1/responses": {
    protocol: "openai-responses",
    last: "event: response.completed",
    body: { model: "m", stream: true, input: "hi" },
  },
};

function chatBody(n) {
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":';
  const delta =
    `data: ${head}[{"index":0,"delta":{"content":"${WORD}"},"finish_reason":null}]}\n\n`;
  return `data: ${head}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n` +
    delta.repeat(n) +
    `data: ${head}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
}

const event = (name, data) =>
  `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;

function anthropicBody(n) {
  return event("message_start", {
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  }) + event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
    event("content_block_delta", { index: 0, delta: { type: "text_delta", text: WORD } })
      .repeat(n) +
    event("content_block_stop", { index: 0 }) +
    event("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: n } }) +
    event("message_stop", {});
}

function responsesBody(n) {
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
  return event("response.created", { response }) +
    event("response.output_item.added", { output_index: 0, item }) +
    event("response.output_text.delta", {
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: WORD,
    }).repeat(n) +
    event("response.output_item.done", {
      output_index: 0,
      item: { ...item, status: "completed" },
    }) +
    event("response.completed", {
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

/** The upstream body of `n` deltas in the case's upstream protocol, in 16 KiB pieces. */
export function upstreamPieces(c, n) {
  const bytes = new TextEncoder().encode(BODIES[c.upstream](n));
  const out = [];
  for (let i = 0; i < bytes.length; i += 16384) out.push(bytes.subarray(i, i + 16384));
  return out;
}

/**
 * A relay (`createRelay` of the build under test) whose one upstream answers `pieces` (pulled one
 * at a time, as a network delivers them) to every request.
 */
export function relayFor(createRelay, c, pieces) {
  return createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "k", protocol: c.upstream }],
    maxRetries: 0,
    // The child's stdout carries its JSON result line.
    logCalls: false,
    fetch: () => {
      let i = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (i < pieces.length) controller.enqueue(pieces[i++]);
          else controller.close();
        },
      });
      return Promise.resolve(
        new Response(body, { headers: { "content-type": "text/event-stream" } }),
      );
    },
  });
}

/** The caller's request to the case's route (a `Request` init for `app.request`). */
export function requestInit(c) {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ROUTES[c.route].body),
  };
}

/** What `streamChat` needs to read the route's answer (the answer check). */
export function clientOptions(c, app) {
  const { protocol, body } = ROUTES[c.route];
  return {
    baseURL: "http://relay.test/v1",
    protocol,
    body,
    maxRetries: 0,
    fetch: (input, init) => app.request(input, init),
  };
}

/** The line that ends an answer on the case's route. */
export function lastLine(c) {
  return ROUTES[c.route].last;
}
