import type { Accumulator } from "../core/accumulator.ts";
import type { ChatResult } from "../core/chat_result.ts";
import { APIStatusError, StreamProtocolError } from "../core/error_classes.ts";
import { foreignMessage, malformedMessage } from "../core/error_messages.ts";
import type { ProtocolName } from "../core/chat_options.ts";
import { protocolOfEvent } from "../protocols/registry.ts";
import type { SseFeed } from "./sse_feed.ts";
import type { Protocol } from "../protocols/protocol.ts";
import type { CallTarget } from "./plan.ts";

/** The error a `200` JSON body reports (`{"error": {…}}`), else `undefined`. */
export function errorInBody(
  body: unknown,
  status: number,
  headers: Record<string, string>,
  protocol: Protocol,
): Error | undefined {
  if (typeof body !== "object" || body === null || (body as { error?: unknown }).error == null) {
    return undefined;
  }
  return protocol.toUpstreamError(body) ?? new APIStatusError(status, headers, body);
}

/** The answer `target` gave, with its response's `x-ratelimit-*` headers. */
export function resultOf(
  acc: Accumulator,
  attempts: number,
  target: CallTarget,
  headers: Record<string, string>,
): ChatResult {
  const result = acc.toResult(attempts);
  result.target = target.info;
  for (const name in headers) {
    if (name.startsWith("x-ratelimit-")) (result.rateLimit ??= {})[name] = headers[name]!;
  }
  return result;
}

/** For a body that should have been an event stream: its error, else a `StreamProtocolError`. */
export function notAStream(
  body: unknown,
  status: number,
  headers: Record<string, string>,
  protocol: Protocol,
  what: string,
): Error {
  return errorInBody(body, status, headers, protocol) ?? new StreamProtocolError(
    malformedMessage(
      `the server answered HTTP ${status} with ${what}`,
      typeof body === "string" ? body : JSON.stringify(body),
    ),
  );
}

/** A stream of another protocol that gave the call nothing: not an answer, nor a cut to retry. */
export function foreignStream(
  feed: SseFeed,
  acc: Accumulator,
  expected: ProtocolName,
  cause?: unknown,
): StreamProtocolError | undefined {
  const first = feed.firstData;
  if (first === undefined || acc.delivered) return undefined;
  const found = protocolOfEvent(first);
  if (found === undefined || found === expected) return undefined;
  const message = foreignMessage(expected, found, first);
  const error = new StreamProtocolError(message, cause === undefined ? undefined : { cause });
  error.foundProtocol = found;
  return error;
}
