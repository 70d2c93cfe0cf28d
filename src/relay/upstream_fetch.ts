/**
 * The `fetch` the relay hands to `streamChat` for one caller request: it counts upstream
 * requests, serves the built-in demo in-process, and decides which caller headers travel.
 *
 * @module
 */

import { DEMO_ATTEMPT_HEADER, DEMO_FAULT_HEADER } from "../demo/upstream.ts";

/**
 * Caller headers that may reach a real upstream. Everything else stays behind: the caller's
 * `Authorization` (the relay sends the upstream's own key), cookies, hop-by-hop headers,
 * Cloudflare's `cf-*`/`x-forwarded-*` and the demo's fault headers.
 */
const FORWARDED_HEADERS: readonly string[] = ["anthropic-beta", "openai-beta"];

/**
 * The headers of the caller's request that may be sent upstream (an allowlist).
 *
 * @example
 * ```ts
 * forwardedHeaders(new Headers({ authorization: "Bearer x", "openai-beta": "y" })); // { "openai-beta": "y" }
 * ```
 */
export function forwardedHeaders(headers: Headers): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) forwarded[name] = value;
  }
  return forwarded;
}

/**
 * The in-process demo upstream, when the relay serves it.
 *
 * @example
 * ```ts
 * const demo: InProcessDemo = { baseURL: "https://relay.example/demo/v1", handler, fault: null };
 * ```
 */
export interface InProcessDemo {
  /** Requests under this base URL go to `handler` without a network hop. */
  baseURL: string;
  handler: (request: Request) => Promise<Response>;
  /** The caller's `x-demo-fault` header, or `null`. */
  fault: string | null;
}

/**
 * A `fetch` for one relayed call, and how many upstream requests it has made so far.
 *
 * @example
 * ```ts
 * const upstream: UpstreamFetch = createUpstreamFetch(undefined, undefined);
 * upstream.calls; // 0
 * ```
 */
export interface UpstreamFetch {
  fetch: typeof fetch;
  readonly calls: number;
}

/**
 * Build the per-request upstream `fetch`. Demo requests carry the caller's `x-demo-fault` and
 * an `x-demo-attempt` numbered by this counter, so per-attempt faults (`attempt1=status:503`)
 * work through the relay; requests to real upstreams get neither.
 *
 * @example
 * ```ts
 * const upstream = createUpstreamFetch(undefined, { baseURL, handler: createDemoUpstream(), fault: "attempt1=status:503" });
 * streamChat({ baseURL, body, fetch: upstream.fetch });
 * ```
 */
export function createUpstreamFetch(
  base: typeof fetch | undefined,
  demo: InProcessDemo | undefined,
): UpstreamFetch {
  const state = {
    calls: 0,
    fetch: (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      state.calls++;
      if (demo !== undefined) {
        const request = new Request(input, init);
        if (request.url.startsWith(`${demo.baseURL}/`)) return callDemo(demo, request, state.calls);
      }
      return (base ?? globalThis.fetch)(input, init).then(readInLargeChunks);
    },
  };
  return state;
}

/** The most an upstream event stream is read at once. */
const READ_BYTES = 64 * 1024;
const LF = 10;
const CR = 13;

/**
 * An upstream event stream, read up to {@linkcode READ_BYTES} at a time and handed on in whole
 * events. A Worker's default reader gives a fetch body over in pieces of at most 4 KiB, and each
 * piece costs the isolate more than the events in it: a 100k-delta stream took 6,500 reads and
 * 2.5 µs of CPU per event so, against 800 reads and 0.5 µs with 64 KiB reads (bench/notes.md). A
 * BYOB reader fills a larger buffer with whatever has arrived, no later than a default read
 * would return. And a read that ends inside an event (workerd hands a chunk of a chunked body
 * over in two reads, the first of a few dozen bytes) is followed by another before anything is
 * passed on: the client could not use a part of an event anyway, and it reads each event once.
 * A body that cannot be read so (not a byte stream: the in-process demo, a test's) is left as
 * it is, and so is anything but a 200 event stream.
 */
function readInLargeChunks(response: Response): Response {
  const { body } = response;
  const type = response.headers.get("content-type") ?? "";
  if (body === null || response.status !== 200 || !/event-stream/i.test(type)) return response;
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    return response;
  }
  let buffer = new ArrayBuffer(READ_BYTES);
  // Whether what was passed on so far ended with an event: only then can this side tell where
  // the next one ends (a blank line may straddle a full buffer's end).
  let atEventStart = true;
  const chunks = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let filled = 0;
      for (;;) {
        const { done, value } = await reader.read(new Uint8Array(buffer, filled));
        if (value !== undefined) {
          // A BYOB read transfers the buffer and returns it with the bytes: the next read
          // reuses it, and what was read leaves as a copy of its own size.
          buffer = value.buffer as ArrayBuffer;
          filled += value.byteLength;
        }
        const bytes = new Uint8Array(buffer, 0, filled);
        if (done) {
          if (filled > 0) controller.enqueue(bytes.slice());
          return controller.close();
        }
        const ends = endsEvent(bytes);
        if (ends || filled === READ_BYTES || !atEventStart) {
          atEventStart = ends;
          return controller.enqueue(bytes.slice());
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Response(chunks, response);
}

/**
 * Whether `bytes` end where an event does: their last line terminator (CRLF, LF or CR) ends an
 * empty line, i.e. comes right after another one.
 */
function endsEvent(bytes: Uint8Array): boolean {
  let i = bytes.length - 1;
  const last = bytes[i];
  if (last === LF) {
    if (bytes[i - 1] === CR) i--; // CRLF is one terminator
  } else if (last !== CR) {
    return false;
  }
  const before = bytes[i - 1];
  return before === LF || before === CR;
}

function callDemo(demo: InProcessDemo, request: Request, attempt: number): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set(DEMO_ATTEMPT_HEADER, String(attempt));
  if (demo.fault !== null) headers.set(DEMO_FAULT_HEADER, demo.fault);
  const signal = request.signal;
  if (signal.aborted) return Promise.reject(signal.reason);
  const pending = demo.handler(new Request(request, { headers }));
  // A real fetch rejects at once on abort, even while waiting for headers; so must this one.
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
