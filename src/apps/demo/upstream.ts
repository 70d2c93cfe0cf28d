// The demo upstream: an OpenAI-compatible model with a deterministic reply and faults on request.
// A plain `Request → Response` function, so the relay, the CLI and the tests serve the same one.

import { type DemoFaults, MAX_RESPONSE_MS, parseDemoFaults } from "./faults.ts";
import { parseDemoRequest, planDemoReply } from "./reply.ts";
import { createDemoStream } from "./stream.ts";
import { chatRequestOf, encodedWire, protocolOf, wholeReply } from "./wire.ts";

/**
 * Options of {@linkcode createDemoUpstream}.
 *
 * @example
 * ```ts
 * const options: DemoUpstreamOptions = { wordDelayMs: 10 };
 * ```
 */
export interface DemoUpstreamOptions {
  /** Pause before each streamed word, in ms (default 25); `word-delay=N` overrides it per request. */
  wordDelayMs?: number;
  /** Runs once when the client stops reading a stream (body cancelled or request aborted). */
  onCancel?: (info: { attempt: number; wordsSent: number }) => void;
  /** Runs for every request, before validation, with the raw `x-demo-fault` spec. */
  onRequest?: (info: { attempt: number; faults: string }) => void;
}

/**
 * The request header that asks the demo for faults (`attempt1=status:503`, `drop-after=5`…).
 *
 * @example
 * ```ts
 * new Headers({ [DEMO_FAULT_HEADER]: "attempt1=status:503" });
 * ```
 */
export const DEMO_FAULT_HEADER = "x-demo-fault";
/** Numbers attempts (default 1); the answer echoes it. */
export const DEMO_ATTEMPT_HEADER = "x-demo-attempt";

/**
 * The demo model: an OpenAI-compatible `Request → Response` function (`POST …/chat/completions`)
 * that streams a fixed reply word by word and plays the faults `x-demo-fault` asks for.
 *
 * @example
 * ```ts
 * const demo = createDemoUpstream();
 * const response = await demo(new Request("http://demo/v1/chat/completions", { method: "POST", body }));
 * ```
 */
export function createDemoUpstream(
  options: DemoUpstreamOptions = {},
): (request: Request) => Promise<Response> {
  const wordDelayMs = options.wordDelayMs ?? 25;
  if (!(wordDelayMs >= 0 && Number.isFinite(wordDelayMs))) {
    throw new RangeError(`wordDelayMs must be a finite number >= 0, got ${wordDelayMs}`);
  }
  return async (request) => {
    const attemptHeader = request.headers.get(DEMO_ATTEMPT_HEADER)?.trim() ?? "1";
    if (!/^[1-9][0-9]{0,5}$/.test(attemptHeader)) {
      return errorResponse(
        400,
        `${DEMO_ATTEMPT_HEADER} must be a positive integer, got "${attemptHeader}"`,
      );
    }
    const attempt = Number(attemptHeader);
    const spec = request.headers.get(DEMO_FAULT_HEADER) ?? "";
    options.onRequest?.({ attempt, faults: spec });
    if (request.method !== "POST") {
      return errorResponse(405, `Method ${request.method} not allowed; use POST.`, {
        allow: "POST",
      });
    }
    const protocol = protocolOf(new URL(request.url).pathname);
    if (protocol === undefined) {
      return errorResponse(
        404,
        "Not found; the demo model serves POST …/chat/completions, …/messages and …/responses.",
      );
    }
    let faults: DemoFaults;
    try {
      faults = parseDemoFaults(spec, attempt);
    } catch (error) {
      return errorResponse(400, (error as Error).message, {}, "invalid_demo_fault");
    }
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      return errorResponse(400, "The request body is not valid JSON.");
    }
    let body: ReturnType<typeof parseDemoRequest>;
    try {
      body = parseDemoRequest(chatRequestOf(protocol, json));
    } catch (error) {
      return errorResponse(400, (error as Error).message);
    }
    const plan = planDemoReply(body, faults);
    const delay = faults.wordDelayMs ?? wordDelayMs;
    // Refused before any waiting: a public demo must not become a way to hold connections open.
    const plannedMs = plannedDuration(faults, body.stream ? plan.deltas.length : 0, delay);
    if (plannedMs > MAX_RESPONSE_MS) {
      return errorResponse(
        400,
        `x-demo-fault asks for a response lasting about ${Math.ceil(plannedMs / 1000)} s; ` +
          `every demo response ends within ${MAX_RESPONSE_MS / 1000} s`,
        {},
        "invalid_demo_fault",
      );
    }
    const endBy = Date.now() + MAX_RESPONSE_MS;
    const headers = new Headers({ [DEMO_ATTEMPT_HEADER]: String(attempt) });
    if (faults.retryAfter !== undefined) headers.set("retry-after", String(faults.retryAfter));
    if (faults.retryAfterMs !== undefined) {
      headers.set("retry-after-ms", String(faults.retryAfterMs));
    }
    if (faults.firstByteMs !== undefined) {
      const waited = await waitUnlessAborted(faults.firstByteMs, request.signal);
      if (!waited) {
        options.onCancel?.({ attempt, wordsSent: 0 });
        // Nobody is listening any more; the status only matters for logs.
        return new Response(null, { status: 499 });
      }
    }
    if (faults.status !== undefined && faults.status !== 200) {
      return errorResponse(faults.status, faultMessage(faults.status), headers);
    }
    if (faults.html === true) {
      headers.set("content-type", "text/html; charset=utf-8");
      return new Response(HTML, { status: 200, headers });
    }
    if (!body.stream) return Response.json(wholeReply(protocol, plan, body.model), { headers });
    headers.set("content-type", "text/event-stream; charset=utf-8");
    headers.set("cache-control", "no-cache");
    const stream = createDemoStream({
      plan,
      faults,
      model: body.model,
      wordDelayMs,
      includeUsage: body.includeUsage,
      attempt,
      endBy,
      signal: request.signal,
      onCancel: options.onCancel,
      wire: protocol === "openai-chat" ? undefined : encodedWire(protocol, plan, body.model),
    });
    return new Response(stream, { status: 200, headers });
  };
}

const HTML = "<!doctype html>\n<html><head><title>Just a moment…</title></head>" +
  "<body><h1>Checking your browser before accessing the API</h1>" +
  "<p>This is the stopstream demo answering HTML with status 200 (fault html=1).</p>" +
  "</body></html>\n";

/** Worst case: the header wait, then (streaming) each word's pause and the stall. */
function plannedDuration(faults: DemoFaults, words: number, delay: number): number {
  const first = faults.firstByteMs ?? 0;
  if ((faults.status !== undefined && faults.status !== 200) || faults.html === true) return first;
  // A whole (non-streaming) reply has no words to stall between.
  return first + (words > 0 ? words * delay + (faults.stallMs ?? 0) : 0);
}

function faultMessage(status: number): string {
  if (status === 429) return "Rate limit reached (demo fault status=429).";
  if (status >= 500) return `The demo model is overloaded (demo fault status=${status}).`;
  return `The demo model rejected the request (demo fault status=${status}).`;
}

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401) return "authentication_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function errorResponse(
  status: number,
  message: string,
  init: HeadersInit = {},
  code: string | null = null,
): Response {
  const error = { message, type: errorType(status), param: null, code };
  return Response.json({ error }, { status, headers: init });
}

function waitUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
