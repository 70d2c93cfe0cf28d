// The loopback upstream (127.0.0.1 only), run as its own process so it never competes with the
// contender for the event loop. Routes, under /s/<scenario>/<anything>:
//   tp.<workload>.<n>.<seed>  stream a synthetic workload as fast as the socket takes it
//   short                     a 6-delta answer written at once (time to first delta)
//   hang.<id>                 accept the request and never answer
//   park.<id>                 send headers and three deltas, then go quiet
//   e503.<id>                 answer 503 (no Retry-After), every time
//   slow.<id>                 100 deltas, one every 10 ms (counted in GET /stats)
// and the same scenarios under /m/<anything>, named by the request body's `model` (the relay's
// upstream URL is fixed, the body passes through),
// plus GET /meta/<tp key> (sizes + text hash), POST /closes (when each hang/park connection
// closed, `process.hrtime.bigint()` in ns: the same monotonic clock as the child).
// For the outage benchmark (lib/outage_bench.mjs): /p/<anything> and /f/<anything> (a primary
// and a fallback) serve like /m/, or answer 503 while POST /mode?p=down (or f=down) holds;
// GET /counts says how many requests /p, /f and /m have had.

import { createServer } from "node:http";
import { buildWorkload, openaiStream } from "./streams.mjs";

const cache = new Map();
const closes = new Map();

function workload(key) {
  let data = cache.get(key);
  if (!data) {
    const [, name, n, seed] = key.split(".");
    data = buildWorkload(name, Number(n), Number(seed));
    cache.set(key, data);
  }
  return data;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

function pump(res, bytes) {
  const step = 64 * 1024;
  let at = 0;
  let closed = false;
  res.once("close", () => closed = true);
  const write = () => {
    while (!closed && at < bytes.length) {
      const end = Math.min(at + step, bytes.length);
      const more = res.write(bytes.subarray(at, end));
      at = end;
      if (!more) return void res.once("drain", write);
    }
    if (!closed) res.end();
  };
  write();
}

/**
 * POST /closes with a JSON array of ids: answers `{ id: { ns, completed } }` (`completed`: the
 * response had been sent in full before the connection closed) once every id's connection has
 * closed (or after 2 s with those that did), so the last abort's close is never missed.
 */
async function reportCloses(req, res) {
  let body = "";
  for await (const chunk of req) body += chunk;
  const ids = JSON.parse(body);
  const deadline = Date.now() + 2000;
  while (!ids.every((id) => closes.has(id)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const out = {};
  for (const id of ids) {
    const close = closes.get(id);
    if (close) out[id] = { ns: close.ns.toString(), completed: close.completed };
    closes.delete(id);
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(out));
}

const short = openaiStream(6, 7);
const park = openaiStream(3, 8);

// Paced streams for the relay load test: counted while open, and whether they were cut short.
const SLOW = openaiStream(100, 9);
const SLOW_EVERY_MS = 10;
const slowStats = { started: 0, completed: 0, cancelled: 0, open: 0 };

function slow(res, id) {
  slowStats.started++;
  slowStats.open++;
  res.writeHead(200, SSE_HEADERS);
  let i = 0;
  const timer = setInterval(() => {
    const end = Math.min(i + 1, SLOW.offsets.length - 1);
    res.write(SLOW.bytes.subarray(SLOW.offsets[i], SLOW.offsets[end]));
    i = end;
    if (i === SLOW.offsets.length - 1) res.end();
  }, SLOW_EVERY_MS);
  res.once("close", () => {
    closes.set(id, { ns: process.hrtime.bigint(), completed: res.writableFinished });
    clearInterval(timer);
    slowStats.open--;
    if (res.writableFinished) slowStats.completed++;
    else slowStats.cancelled++;
  });
}

function serve(scenario, res) {
  const dot = scenario.indexOf(".");
  const kind = dot < 0 ? scenario : scenario.slice(0, dot);
  const id = scenario.slice(dot + 1);
  if (kind === "tp") {
    res.writeHead(200, SSE_HEADERS);
    return pump(res, workload(scenario).bytes);
  }
  if (kind === "short") {
    res.writeHead(200, SSE_HEADERS);
    return void res.end(short.bytes);
  }
  if (kind === "slow") return slow(res, id);
  if (kind === "hang" || kind === "park") {
    res.once("close", () => closes.set(id, { ns: process.hrtime.bigint(), completed: false }));
    if (kind === "park") {
      res.writeHead(200, SSE_HEADERS);
      // The first five events: the role chunk and three deltas (not the finish).
      res.write(park.bytes.subarray(0, park.offsets[4]));
    }
    return;
  }
  if (kind === "e503") {
    res.writeHead(503, { "content-type": "application/json" });
    return void res.end(
      JSON.stringify({ error: { message: "overloaded", type: "server_error", code: 503 } }),
    );
  }
  res.writeHead(404);
  res.end();
}

const down = { p: false, f: false };
const counts = { p: 0, f: 0, m: 0 };

function setMode(url, res) {
  for (const name of ["p", "f"]) {
    const mode = url.searchParams.get(name);
    if (mode !== null) down[name] = mode === "down";
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(down));
}

async function scenarioFromBody(req, res) {
  let body = "";
  for await (const chunk of req) body += chunk;
  serve(String(JSON.parse(body).model), res);
}

function route(req, res) {
  const url = new URL(req.url, "http://127.0.0.1");
  const parts = url.pathname.split("/");
  if (parts[1] === "meta") {
    const { bytes, events, textLength, textHash } = workload(parts[2]);
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ bytes: bytes.length, events, textLength, textHash }));
  }
  if (parts[1] === "closes") return void reportCloses(req, res);
  if (parts[1] === "stats") {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(slowStats));
  }
  if (parts[1] === "mode") return setMode(url, res);
  if (parts[1] === "counts") {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(counts));
  }
  if (parts[1] in counts) counts[parts[1]]++;
  if (down[parts[1]]) {
    req.resume();
    return serve("e503", res);
  }
  // Behind the relay the path is fixed (its UPSTREAM_BASE_URL): the model names the scenario.
  if (parts[1] === "m" || parts[1] === "p" || parts[1] === "f") {
    return void scenarioFromBody(req, res);
  }
  if (parts[1] !== "s" || !parts[2]) {
    res.writeHead(404);
    return void res.end();
  }
  // Drain the request body so the request is complete from the client's point of view.
  req.resume();
  serve(parts[2], res);
}

/** Starts the server on an ephemeral loopback port; resolves with its base URL. */
export function startServer() {
  const server = createServer(route);
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${server.address().port}` });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startServer();
  process.stdout.write(JSON.stringify({ url }) + "\n");
  // The parent closes our stdin when it is done; exit then, whatever is still open.
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
