// The Durable Object of one resumable stream. It imports nothing from `cloudflare:workers` (the
// relay talks to it with `fetch` only), so `stopstream/hono` still loads in Node, Deno and Bun.

import type { RelayFetch } from "../options.ts";
import { noop, STREAM_ID_HEADER } from "../../core/constants.ts";
import { redact } from "../../core/redact.ts";
import { sameHash } from "../auth.ts";
import { errorResponse, invalidRequest } from "../error_response.ts";
import { SSE_HEADERS } from "../sse_response.ts";
import { EventLog } from "./event_log.ts";
import { describeStream } from "./stream_state.ts";
import { afterTheEnd, EVENT_ID, readEvents, tooManyReaders } from "./reader.ts";
import { answerOf, StreamErrors } from "./stream_errors.ts";
import { INTERRUPTED, secretsOf, START_FAILED, StreamRun } from "./stream_run.ts";
import {
  type StreamMeta,
  type StreamStatus,
  type StreamStorage,
  StreamStore,
} from "./stream_store.ts";
import { decodePlan, MAX_READERS, OWNER_HEADER, type StartPlan, streamNotFound } from "./wire.ts";

// An alarm is an incoming event: an object with none for 70–140 s is evicted, cutting the
// upstream call (an outbound `fetch` does not count).
const HEARTBEAT_MS = 30_000;

/** The slice of a Durable Object's `ctx` (`DurableObjectState`) that `RelayStream` uses. */
export interface RelayStreamState {
  /** The object's SQLite-backed storage. */
  storage: StreamStorage;
  /** Keeps the object running for `promise` (a no-op where objects stay alive anyway). */
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * What a Worker may give its `RelayStream` class (in a subclass's constructor).
 *
 * @example
 * ```ts
 * const options: RelayStreamOptions = { fetch: (input, init) => fetch(input, init) };
 * ```
 */
export interface RelayStreamOptions {
  /** Calls the upstreams, as `createRelay`'s `fetch` option. Default `globalThis.fetch`. */
  fetch?: RelayFetch;
}

/**
 * The Durable Object class behind resumable streams (binding `STREAMS`, SQLite-backed). Export
 * it from your Worker's entry module next to your app.
 *
 * @example
 * ```ts
 * export { RelayStream } from "stopstream/hono";
 * ```
 */
export class RelayStream {
  #ctx: RelayStreamState;
  #fetch: RelayFetch | undefined;
  #store: StreamStore;
  /** The upstream call, while this instance runs it: a restart loses it. */
  #run: StreamRun | undefined;
  #log: EventLog | undefined;
  #recorded: Promise<void> | undefined;

  /** Called by the runtime with the object's state; `env` is not used. */
  constructor(ctx: RelayStreamState, _env?: unknown, options: RelayStreamOptions = {}) {
    this.#ctx = ctx;
    this.#fetch = options.fetch;
    this.#store = new StreamStore(ctx.storage);
  }

  /** Requests from the relay's Worker: `POST /start`, `GET /events`, `/status`, `POST /cancel`. */
  async fetch(request: Request): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === "/start" && request.method === "POST") return await this.#start(request);
    const meta = await this.#find(request.headers.get(OWNER_HEADER) ?? "");
    if (meta === undefined) return streamNotFound();
    if (pathname === "/events") {
      const readers = Number(searchParams.get("readers")) || MAX_READERS;
      return this.#follow(meta, searchParams.get("after") ?? "0", readers);
    }
    if (pathname === "/status") {
      return Response.json(describeStream(meta, this.#log, this.#store.writes));
    }
    if (pathname === "/cancel" && request.method === "POST") return await this.#cancel(meta);
    return streamNotFound();
  }

  /** The heartbeat while the call runs; the end of a call lost in a restart; expiry. */
  async alarm(): Promise<void> {
    const meta = this.#store.meta();
    if (meta === undefined) return;
    if (meta.status === "running" && this.#run !== undefined) {
      const next = this.#run.heartbeat(Date.now(), HEARTBEAT_MS);
      // Stopped: the run's end sets the expiry alarm, which a heartbeat must not replace.
      await (next === undefined ? this.#recorded : this.#ctx.storage.setAlarm(next));
      return;
    }
    // Ends a call lost in a restart, or deletes an expired stream; else the expiry stays due.
    const found = await this.#find(meta.owner);
    if (found?.expires != null) await this.#ctx.storage.setAlarm(found.expires);
  }

  async #start(request: Request): Promise<Response> {
    if (this.#store.meta() !== undefined) {
      return errorResponse(invalidRequest(409, "This stream already exists.", "stream_exists"));
    }
    // The row is written only after every check and removed if setting the alarm fails: a row
    // with no alarm would say "running" for ever.
    let plan: StartPlan | undefined;
    let log: EventLog;
    let run: StreamRun;
    const created = Date.now();
    try {
      plan = decodePlan(await request.text());
      log = new EventLog(this.#store, plan.maxBytes, 1);
      run = new StreamRun(plan, log, this.#fetch); // checks the call's options; sends nothing yet
      const { id, owner, ttlMs: ttl, keepAliveMs: keepAlive } = plan;
      this.#store.create({ id, owner, created, ttl, keepAlive, answer: answerOf(plan) });
      await this.#ctx.storage.setAlarm(created + HEARTBEAT_MS);
    } catch (error) {
      return await this.#notStarted(error, plan);
    }
    this.#log = log;
    this.#run = run;
    // An unread bound shorter than the heartbeat is kept to its time, not to the next heartbeat.
    log.onUnread = () => {
      if (this.#run === run && run.unreadMs < HEARTBEAT_MS) {
        this.#ctx.storage.setAlarm(Date.now() + run.unreadMs).catch(noop);
      }
    };
    this.#recorded = run.start(request.signal).then((status) => this.#record(status));
    this.#ctx.waitUntil?.(this.#recorded);
    const failure = await run.committed;
    const errors = new StreamErrors(answerOf(plan));
    if (failure !== undefined) return errors.response(failure, run.report);
    return new Response(readEvents(log, 0, plan.keepAliveMs, errors), {
      headers: { ...SSE_HEADERS, ...run.report, ...run.headers, [STREAM_ID_HEADER]: plan.id },
    });
  }

  async #notStarted(error: unknown, plan: StartPlan | undefined): Promise<Response> {
    try {
      await this.#store.delete();
    } finally {
      const secrets = plan === undefined ? [] : secretsOf(plan.call);
      const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      console.error(`stopstream relay: a resumable stream did not start: ${redact(what, secrets)}`);
    }
    return new StreamErrors(plan && answerOf(plan)).response(START_FAILED);
  }

  /** Running with no call in memory: the call was lost in a restart, it ends with `INTERRUPTED`. */
  async #find(owner: string): Promise<StreamMeta | undefined> {
    let meta = this.#store.meta();
    if (meta === undefined) return undefined;
    if (meta.status === "running" && this.#run === undefined) {
      const log = this.#log ??= EventLog.restore(this.#store, false);
      const interrupted = new StreamErrors(meta.answer).event(INTERRUPTED, log.lastVisible);
      this.#recorded ??= log.close(interrupted).then(() => this.#record("failed"));
      await this.#recorded;
      meta = this.#store.meta();
      if (meta === undefined) return undefined;
    }
    if (meta.expires !== null && Date.now() >= meta.expires) {
      await this.#expire();
      return undefined;
    }
    return meta.owner === "" || sameHash(meta.owner, owner) ? meta : undefined;
  }

  #follow(meta: StreamMeta, given: string, maxReaders: number): Response {
    const errors = new StreamErrors(meta.answer);
    const log = this.#log ??= EventLog.restore(this.#store, meta.status !== "running");
    const after = EVENT_ID.test(given) ? Number(given) : undefined;
    // Nothing will come after: the SSE standard's way to stop an EventSource reconnecting, which
    // it does after every end of a body, `[DONE]` included, with the last id it saw.
    if (after !== undefined && log.ended && after >= log.lastVisible) {
      return new Response(null, { status: 204, headers: { [STREAM_ID_HEADER]: meta.id } });
    }
    if (after === undefined || after > log.lastVisible) {
      return errors.response(afterTheEnd(given, log.lastVisible));
    }
    if (log.readers >= maxReaders) {
      return errors.response(tooManyReaders(maxReaders, meta.keepAlive));
    }
    return new Response(readEvents(log, after, meta.keepAlive, errors), {
      headers: { ...SSE_HEADERS, [STREAM_ID_HEADER]: meta.id },
    });
  }

  async #cancel(meta: StreamMeta): Promise<Response> {
    const run = meta.status === "running" ? this.#run : undefined;
    // Two cancels at once: the one that stopped the run says so, the other that it had ended.
    const cancelled = run !== undefined && run.stopped === undefined;
    if (run !== undefined) {
      run.stop("cancelled");
      await this.#recorded;
    }
    const ended = run === undefined ? meta : this.#store.meta() ?? meta;
    return Response.json({ ...describeStream(ended, this.#log, this.#store.writes), cancelled });
  }

  async #record(status: StreamStatus | undefined): Promise<void> {
    this.#run = undefined;
    const meta = this.#store.meta();
    if (status === undefined || meta === undefined) {
      await this.#expire();
      return;
    }
    const log = this.#log as EventLog;
    meta.status = status;
    meta.ended = Date.now();
    meta.expires = meta.ended + meta.ttl;
    meta.events = log.lastVisible;
    meta.bytes = log.bytes;
    this.#store.finish(meta);
    await this.#ctx.storage.setAlarm(meta.expires);
  }

  async #expire(): Promise<void> {
    this.#log?.forget();
    this.#log = undefined;
    this.#recorded = undefined;
    await this.#store.delete();
  }
}
