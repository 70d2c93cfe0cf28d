// Deterministic synthetic SSE streams: an OpenAI chat stream, a tool-call-heavy OpenAI chat
// stream and an Anthropic Messages stream. Each is built once into one contiguous buffer
// (so delivery costs nothing but slicing) together with the byte offset of every event
// boundary and a hash of the text a correct consumer must assemble.

/** Small, fast, seedable PRNG (mulberry32): the same seed gives the same stream everywhere. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over UTF-16 code units: cheap enough to check a 5 MB answer after the clock stops. */
export function hashText(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Tokens as a model emits them: mostly short words with a leading space, plus the characters
// that make a parser work (JSON escapes, multi-byte UTF-8 that chunking splits mid-character).
const VOCAB = [
  " the",
  " a",
  " model",
  " stream",
  " token",
  " of",
  " to",
  " and",
  " is",
  " in",
  " that",
  " answer",
  " we",
  " can",
  " it",
  ".",
  ",",
  " data",
  " request",
  " fast",
  "\n",
  "\n\n",
  ' "',
  '"',
  " café",
  " naïve",
  " —",
  " 🙂",
  " \\n",
  "\t",
  " über",
  " 東京",
  ":",
  " `code`",
  " 42",
];

const ID = '"id":"chatcmpl-bench0001","object":"chat.completion.chunk","created":1735689600,' +
  '"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0123456789"';

class Builder {
  constructor(estimate) {
    this.buf = new Uint8Array(estimate);
    this.len = 0;
    this.offsets = [0];
    this.encoder = new TextEncoder();
  }
  event(text) {
    // Worst case 3 bytes per UTF-16 unit.
    if (this.len + text.length * 3 > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + text.length * 3));
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
    }
    this.len += this.encoder.encodeInto(text, this.buf.subarray(this.len)).written;
    this.offsets.push(this.len);
  }
  done(text) {
    // A view, not a copy: a copy would double the peak RSS the benchmark reports.
    const bytes = this.buf.subarray(0, this.len);
    return {
      bytes,
      offsets: Uint32Array.from(this.offsets),
      events: this.offsets.length - 1,
      textLength: text.length,
      textHash: hashText(text),
    };
  }
}

function openaiChunk(delta, finish) {
  return `data: {${ID},"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}\n\n`;
}

function openaiTail(b, finish, n) {
  b.event(openaiChunk("{}", `"${finish}"`));
  b.event(
    `data: {${ID},"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":${n},"total_tokens":${
      n + 12
    }}}\n\n`,
  );
  b.event("data: [DONE]\n\n");
}

/** OpenAI chat stream: a role chunk, `n` content deltas, a finish chunk, a usage chunk, [DONE]. */
export function openaiStream(n, seed = 1) {
  const rand = prng(seed);
  const b = new Builder(n * 260 + 4096);
  b.event(openaiChunk('{"role":"assistant","content":"","refusal":null}', "null"));
  let text = "";
  for (let i = 0; i < n; i++) {
    const token = VOCAB[(rand() * VOCAB.length) | 0];
    text += token;
    b.event(openaiChunk(`{"content":${JSON.stringify(token)}}`, "null"));
  }
  openaiTail(b, "stop", n);
  return b.done(text);
}

/**
 * Tool-call-heavy OpenAI chat stream: 8 calls made of `n` small argument fragments in all.
 * The "text" a consumer must assemble is every call's arguments, concatenated in index order.
 */
export function toolStream(n, seed = 1) {
  const rand = prng(seed);
  const b = new Builder(n * 260 + 4096);
  const calls = 8;
  const per = Math.max(2, Math.floor(n / calls));
  let text = "";
  for (let k = 0; k < calls; k++) {
    const role = k === 0 ? '"role":"assistant","content":null,' : "";
    b.event(openaiChunk(
      `{${role}"tool_calls":[{"index":${k},"id":"call_${k}","type":"function","function":{"name":"lookup","arguments":""}}]}`,
      "null",
    ));
    for (let i = 0; i < per; i++) {
      let frag;
      if (i === 0) frag = '{"q":"';
      else if (i === per - 1) frag = '"}';
      else frag = "abcdefghijklmnopqrstuvwxyz".slice(0, 1 + ((rand() * 4) | 0));
      text += frag;
      b.event(openaiChunk(
        `{"tool_calls":[{"index":${k},"function":{"arguments":${JSON.stringify(frag)}}}]}`,
        "null",
      ));
    }
  }
  openaiTail(b, "tool_calls", n);
  return b.done(text);
}

/** Anthropic Messages stream: message_start, one text block of `n` text deltas, a ping, the end. */
export function anthropicStream(n, seed = 1) {
  const rand = prng(seed);
  const b = new Builder(n * 140 + 4096);
  const ev = (type, data) => b.event(`event: ${type}\ndata: ${data}\n\n`);
  ev(
    "message_start",
    '{"type":"message_start","message":{"id":"msg_bench0001","type":"message","role":"assistant",' +
      '"model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,' +
      '"usage":{"input_tokens":12,"output_tokens":1}}}',
  );
  ev(
    "content_block_start",
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  );
  ev("ping", '{"type": "ping"}');
  let text = "";
  for (let i = 0; i < n; i++) {
    const token = VOCAB[(rand() * VOCAB.length) | 0];
    text += token;
    ev(
      "content_block_delta",
      `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${
        JSON.stringify(token)
      }}}`,
    );
  }
  ev("content_block_stop", '{"type":"content_block_stop","index":0}');
  ev(
    "message_delta",
    `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${n}}}`,
  );
  ev("message_stop", '{"type":"message_stop"}');
  return b.done(text);
}

const OPENROUTER_ID = '"id":"gen-1765226419-bench0001","provider":"Google",' +
  '"model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1765226419';

function openrouterChunk(delta, finish) {
  return `data: {${OPENROUTER_ID},"choices":[{"index":0,"delta":{"role":"assistant",${delta}},` +
    `"finish_reason":${finish},"native_finish_reason":${finish},"logprobs":null}]}\n\n`;
}

/**
 * OpenRouter reasoning stream, shaped like test/recorded/chat/openrouter_reasoning_details.sse:
 * `n` reasoning deltas, each also a `reasoning_details` fragment at index 0 (merged into one
 * detail), its signature, then `n / 4` answer deltas that still carry `reasoning_details: []`.
 * The text a consumer must assemble is the answer.
 */
export function openrouterStream(n, seed = 1) {
  const rand = prng(seed);
  const b = new Builder(n * 520 + 4096);
  const format = '"format":"anthropic-claude-v1","index":0';
  b.event(openrouterChunk('"content":"","reasoning":null,"reasoning_details":[]', "null"));
  for (let i = 0; i < n; i++) {
    const token = JSON.stringify(VOCAB[(rand() * VOCAB.length) | 0]);
    b.event(openrouterChunk(
      `"content":"","reasoning":${token},"reasoning_details":[{"type":"reasoning.text","text":${token},${format}}]`,
      "null",
    ));
  }
  b.event(openrouterChunk(
    `"content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.text","signature":"Et0BCkgIChACGAIqQA2s",${format}}]`,
    "null",
  ));
  let text = "";
  for (let i = 0; i < n >> 2; i++) {
    const token = VOCAB[(rand() * VOCAB.length) | 0];
    text += token;
    b.event(openrouterChunk(
      `"content":${JSON.stringify(token)},"reasoning":null,"reasoning_details":[]`,
      "null",
    ));
  }
  b.event(openrouterChunk('"content":"","reasoning":null,"reasoning_details":[]', '"stop"'));
  b.event(
    `data: {${OPENROUTER_ID},"choices":[],"usage":{"prompt_tokens":43,"completion_tokens":${n}}}\n\n`,
  );
  b.event("data: [DONE]\n\n");
  return b.done(text);
}

/** Builds a workload by name: `openai`, `tools`, `anthropic` or `openrouter`. */
export function buildWorkload(workload, n, seed = 1) {
  if (workload === "openai") return openaiStream(n, seed);
  if (workload === "tools") return toolStream(n, seed);
  if (workload === "anthropic") return anthropicStream(n, seed);
  if (workload === "openrouter") return openrouterStream(n, seed);
  throw new TypeError(`unknown workload: ${workload}`);
}

/** The protocol a workload speaks, as stopstream names it. */
export function protocolOf(workload) {
  return workload === "anthropic" ? "anthropic-messages" : "openai-chat";
}

/** The request body every contender sends (the synthetic servers ignore it). */
export const REQUEST_BODY = {
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "Write a long answer." }],
};
