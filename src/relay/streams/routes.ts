/**
 * The Worker side of resumable streams. The caller's key never reaches the Durable Object, only
 * a hash of it salted with the stream id.
 */

import { Hono } from "hono";
import { bearerKey, sha256 } from "../auth.ts";
import type { Outcome } from "../cooldown.ts";
import { errorResponse } from "../error_response.ts";
import { OUTCOMES_HEADER, parseOutcomes } from "./outcomes.ts";
import {
  encodePlan,
  newStreamId,
  OWNER_HEADER,
  type RelayStreamNamespace,
  RESUMABLE_HEADER,
  type StartPlan,
  STREAM_ID,
  streamNotFound,
  toHex,
} from "./wire.ts";

const EVENT_ID = /^(?:0|[1-9]\d{0,14})$/;

export interface StreamsConfig {
  namespace: RelayStreamNamespace;
  ttlMs: number;
  maxBytes: number;
  /** The most readers of one stream at once (`maxStreamReaders`). */
  maxReaders: number;
  /** The relay's client keys: with none, streams have no owner. */
  keys: readonly string[];
}

export function wantsResumable(headers: Headers): boolean {
  return headers.get(RESUMABLE_HEADER)?.trim().toLowerCase() === "true";
}

/** The Durable Object answers as the relay does; `outcomes` is for the isolate's cooldowns. */
export async function startStream(
  config: StreamsConfig,
  caller: Request,
  parts: Pick<StartPlan, "call" | "upstreams" | "chat" | "keepAliveMs">,
): Promise<{ response: Response; outcomes: Array<Outcome | undefined> | undefined }> {
  const id = newStreamId();
  const plan: StartPlan = {
    ...parts,
    id,
    owner: await ownerOf(config, id, caller.headers.get("authorization") ?? undefined),
    ttlMs: config.ttlMs,
    maxBytes: config.maxBytes,
  };
  const request = new Request("https://relay-stream/start", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: encodePlan(plan),
    // A caller who leaves before the answer begins never learns the id: the object stops the
    // call then. Once it has begun, the call no longer depends on this request.
    signal: caller.signal,
  });
  const response = mutable(await stubOf(config, id).fetch(request));
  const outcomes = parseOutcomes(response.headers.get(OUTCOMES_HEADER));
  response.headers.delete(OUTCOMES_HEADER);
  return { response, outcomes };
}

/** To mount after the relay's key check. */
export function streamRoutes(config: StreamsConfig): Hono {
  const routes = new Hono();
  routes.get("/v1/streams/:id", async (c) => {
    const id = c.req.param("id");
    if (!STREAM_ID.test(id)) return streamNotFound();
    const owner = await ownerOf(config, id, c.req.header("authorization"));
    const accept = c.req.header("accept") ?? "";
    if (accept.includes("application/json") && !accept.includes("text/event-stream")) {
      return mutable(await callStream(config, id, "/status", "GET", owner));
    }
    // The header wins: a browser's EventSource sends it when it reconnects to the same URL.
    const after = c.req.header("last-event-id") || c.req.query("after") || "0";
    if (!EVENT_ID.test(after)) {
      return errorResponse({
        status: 400,
        message: `Last-Event-ID (or ?after=) must be an event id, a whole number, got ${
          JSON.stringify(after.slice(0, 40))
        }.`,
        type: "invalid_request_error",
        code: "invalid_last_event_id",
      });
    }
    return mutable(
      await callStream(
        config,
        id,
        `/events?after=${after}&readers=${config.maxReaders}`,
        "GET",
        owner,
      ),
    );
  });
  routes.post("/v1/streams/:id/cancel", async (c) => {
    const id = c.req.param("id");
    if (!STREAM_ID.test(id)) return streamNotFound();
    const owner = await ownerOf(config, id, c.req.header("authorization"));
    return mutable(await callStream(config, id, "/cancel", "POST", owner));
  });
  return routes;
}

function stubOf(config: StreamsConfig, id: string): { fetch(r: Request): Promise<Response> } {
  return config.namespace.get(config.namespace.idFromName(id));
}

function callStream(
  config: StreamsConfig,
  id: string,
  path: string,
  method: string,
  owner: string,
): Promise<Response> {
  return stubOf(config, id).fetch(
    new Request(`https://relay-stream${path}`, { method, headers: { [OWNER_HEADER]: owner } }),
  );
}

/** The key check has already accepted the key; `""` when the relay takes no keys. */
async function ownerOf(
  config: StreamsConfig,
  id: string,
  authorization: string | undefined,
): Promise<string> {
  if (config.keys.length === 0) return "";
  return toHex(await sha256(`${id}:${bearerKey(authorization) ?? ""}`));
}

/** A Durable Object's response, with headers the app's middleware (CORS) may still set. */
function mutable(response: Response): Response {
  return new Response(response.body, response);
}
