// The Worker side of resumable streams. The caller's key never reaches the Durable Object, only
// a hash of it salted with the stream id.

import { Hono } from "hono";
import { bearerKey, callerAuthorization, sha256, toHex } from "../auth.ts";
import type { Outcome } from "../cooldown.ts";
import { keyIdOf, logCall } from "../call_log.ts";
import { stubOf } from "../durable.ts";
import { OUTCOMES_HEADER, parseOutcomes } from "./outcomes.ts";
import { parseReturned, RETURNED_HEADER } from "./retry_allowance.ts";
import {
  encodePlan,
  OWNER_HEADER,
  type RelayStreamNamespace,
  type StartPlan,
  streamNotFound,
} from "./wire.ts";

const RESUMABLE_HEADER = "x-stopstream-resumable";
const STREAM_ID = /^[0-9a-f]{32}$/;

export interface StreamsConfig {
  namespace: RelayStreamNamespace;
  ttlMs: number;
  maxBytes: number;
  /** The most readers of one stream at once (`maxStreamReaders`). */
  maxReaders: number;
  /** How long a running stream may have no reader before it is stopped (`resumeUnreadMs`). */
  unreadMs: number;
  /** The relay's client keys: with none, streams have no owner. */
  keys: readonly string[];
  /** Whether a reader's resume gets a call log line. */
  logCalls?: boolean;
}

export function wantsResumable(headers: Headers): boolean {
  return headers.get(RESUMABLE_HEADER)?.trim().toLowerCase() === "true";
}

/** `outcomes` is for the isolate's cooldowns, `returned` the lent retries it gives back. */
export async function startStream(
  config: StreamsConfig,
  caller: Request,
  parts: Pick<StartPlan, "call" | "upstreams" | "chat" | "keepAliveMs" | "retries" | "log">,
): Promise<
  { response: Response; outcomes: Array<Outcome | undefined> | undefined; returned: number }
> {
  // 128 random bits, so ids cannot be guessed.
  const id = toHex(crypto.getRandomValues(new Uint8Array(16)));
  const plan: StartPlan = {
    ...parts,
    id,
    owner: await ownerOf(config, id, caller),
    ttlMs: config.ttlMs,
    maxBytes: config.maxBytes,
    unreadMs: config.unreadMs,
  };
  const request = new Request("https://relay-stream/start", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: encodePlan(plan),
    // A caller who leaves before the answer begins never learns the id: the object stops the
    // call then. Once it has begun, the call no longer depends on this request.
    signal: caller.signal,
  });
  const response = mutable(await stubOf(config.namespace, id).fetch(request));
  const outcomes = parseOutcomes(response.headers.get(OUTCOMES_HEADER));
  const returned = parseReturned(response.headers.get(RETURNED_HEADER));
  response.headers.delete(OUTCOMES_HEADER);
  response.headers.delete(RETURNED_HEADER);
  return { response, outcomes, returned };
}

/** To mount after the relay's key check. */
export function streamRoutes(config: StreamsConfig): Hono {
  const routes = new Hono();
  routes.get("/v1/streams/:id", async (c) => {
    const id = c.req.param("id");
    if (!STREAM_ID.test(id)) return streamNotFound();
    const accept = c.req.header("accept") ?? "";
    if (accept.includes("application/json") && !accept.includes("text/event-stream")) {
      return await callStream(config, c.req.raw, id, "/status");
    }
    // The header wins: a browser's EventSource sends it when it reconnects to the same URL. The
    // object checks it: a refusal is in the shape of the stream's protocol, which it knows.
    const after = (c.req.header("last-event-id") || c.req.query("after") || "0").slice(0, 64);
    const path = `/events?after=${encodeURIComponent(after)}&readers=${config.maxReaders}`;
    const arrived = Date.now();
    const response = await callStream(config, c.req.raw, id, path);
    if (config.logCalls === true) await logResume(config, c.req.raw, id, arrived, response.status);
    return response;
  });
  routes.post("/v1/streams/:id/cancel", async (c) => {
    const id = c.req.param("id");
    if (!STREAM_ID.test(id)) return streamNotFound();
    return await callStream(config, c.req.raw, id, "/cancel", "POST");
  });
  return routes;
}

/** A reader's resume is a call of its own: its line says when its answer began, or why not. */
async function logResume(
  config: StreamsConfig,
  caller: Request,
  id: string,
  start: number,
  status: number,
): Promise<void> {
  // As the call's own line: the key however it was sent, none on a relay without keys.
  const keyed = config.keys.length > 0;
  const keyId = keyed ? await keyIdOf(callerAuthorization(caller.headers)) : null;
  const route = "/v1/streams/{id}";
  const line = { callId: id, route, keyId, stream: true, streamId: id, start };
  logCall(line, {
    outcome: status < 400 ? "resumed" : "error",
    firstToken: 0,
    upstreamOf: (t) => t,
  });
}

async function callStream(
  config: StreamsConfig,
  caller: Request,
  id: string,
  path: string,
  method = "GET",
): Promise<Response> {
  const headers = { [OWNER_HEADER]: await ownerOf(config, id, caller) };
  const request = new Request(`https://relay-stream${path}`, { method, headers });
  return mutable(await stubOf(config.namespace, id).fetch(request));
}

/** The key check has already accepted the key; `""` when the relay takes no keys. */
async function ownerOf(config: StreamsConfig, id: string, caller: Request): Promise<string> {
  if (config.keys.length === 0) return "";
  const key = bearerKey(callerAuthorization(caller.headers)) ?? "";
  return toHex(await sha256(`${id}:${key}`));
}

/** A Durable Object's response, with headers the app's middleware (CORS) may still set. */
function mutable(response: Response): Response {
  return new Response(response.body, response);
}
