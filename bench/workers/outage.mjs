// The outage benchmark, child side (issue #13: upstream cooldown and the retry budget). Relays
// run as `npm start` runs them, on the loopback upstream's /p (primary) and /f (fallback),
// either of which the benchmark takes down (POST /mode: every request answered 503).
//   --server <upstream> --relay <URL: /p, fallback /f> --outage-relay <URL: /p alone>
//   --requests N --reference N --outage-calls N --concurrency C --keys k1,k2,…
// Prints one JSON line with, in this order: the sustained outage (/p down, outage-calls
// requests, C at a time, through the relay with /p alone, a fresh isolate that no earlier call
// deposited into); through the other relay, the reference (nothing down), the cooldown phase
// (/p down, /f healthy: N sequential requests, each followed by one straight to the same
// server), and both down (outage-calls requests, C at a time).

import { createParser } from "eventsource-parser";
import { context } from "../lib/context.mjs";
import { REQUEST_BODY } from "../lib/streams.mjs";
import { ttfdByTurns } from "../lib/turns.mjs";
import { parseArgs, runTask } from "../lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
// The relays' keys, taken in turn: callers the relay tells apart, as a shared relay's are (one
// caller alone never cools an upstream down).
const KEYS = String(args.keys ?? "").split(",").filter((key) => key !== "");
let turn = 0;
const authorization = () =>
  KEYS.length === 0 ? {} : { authorization: `Bearer ${KEYS[turn++ % KEYS.length]}` };
const BODY = JSON.stringify({
  model: "short",
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});

async function setMode(mode) {
  const query = new URLSearchParams(mode).toString();
  await (await fetch(`${args.server}/mode?${query}`, { method: "POST" })).arrayBuffer();
}

async function counts() {
  return await (await fetch(`${args.server}/counts`)).json();
}

/** One streaming chat request to `baseURL`: its status, relay headers and time to first delta. */
async function ask(baseURL) {
  const t0 = performance.now();
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...authorization(),
    },
    body: BODY,
  });
  const out = {
    status: response.status,
    attempts: Number(response.headers.get("x-stopstream-attempts") ?? 1),
    upstream: response.headers.get("x-stopstream-upstream"),
    ttfd: null,
    text: "",
    done: false,
  };
  if (!response.ok) {
    await response.arrayBuffer();
    return out;
  }
  // A 200 is not an answer by itself: after 1 s the relay commits the status, and a failure
  // after that is an error event without [DONE].
  const parser = createParser({
    onEvent(event) {
      if (event.data === "[DONE]") return void (out.done = true);
      const content = JSON.parse(event.data).choices?.[0]?.delta?.content;
      if (!content) return;
      out.ttfd ??= performance.now() - t0;
      out.text += content;
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return out;
}

const relay = `${args.relay}/v1`;
const direct = `${args.server}/m/v1`; // the fallback's server, without the relay

async function reference(n) {
  // Nothing wrong: the relay straight to a healthy primary, in turns with direct requests.
  await setMode({ p: "up", f: "up" });
  const urls = { relay, direct };
  const keyed = (input, init = {}) => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(authorization())) headers.set(name, value);
    return globalThis.fetch(input, { ...init, headers });
  };
  const ctxOf = (name, model, extra) =>
    context("openai", urls[name], keyed, { body: { ...REQUEST_BODY, model }, ...extra });
  return await ttfdByTurns(["relay", "direct"], ctxOf, n);
}

async function cooldown(n) {
  await setMode({ p: "down", f: "up" });
  const before = await counts();
  const requests = [];
  const straight = [];
  for (let i = 0; i < n; i++) {
    const call = await ask(relay);
    const { status, attempts, upstream, ttfd } = call;
    requests.push({ status, attempts, upstream, ttfd, ok: call.done });
    // A request straight to the fallback's server, taken in turn with each relayed one.
    straight.push((await ask(direct)).ttfd);
  }
  const after = await counts();
  return {
    requests,
    direct: straight,
    upstreamRequests: { primary: after.p - before.p, fallback: after.f - before.f },
  };
}

/** `n` requests to `url`, `concurrency` at a time, with `mode` set on the upstream. */
async function outage(url, mode, n, concurrency) {
  await setMode(mode);
  const before = await counts();
  let next = 0;
  let answered = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next++;
      if ((await ask(url)).done) answered++;
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const after = await counts();
  await setMode({ p: "up", f: "up" });
  return {
    calls: n,
    concurrency,
    seconds,
    answered,
    upstreamRequests: { primary: after.p - before.p, fallback: after.f - before.f },
  };
}

async function run() {
  const calls = Number(args["outage-calls"] ?? 400);
  const concurrency = Number(args.concurrency ?? 20);
  const alone = `${args["outage-relay"]}/v1`;
  const sustained = await outage(alone, { p: "down" }, calls, concurrency);
  const ref = await reference(Number(args.reference ?? 50));
  const cool = await cooldown(Number(args.requests ?? 200));
  const both = await outage(relay, { p: "down", f: "down" }, calls, concurrency);
  return { reference: ref, cooldown: cool, outage: sustained, bothDown: both };
}

await runTask({ run }, "run");
