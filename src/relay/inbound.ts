// The protocols a caller may speak to the relay: for each, how its request is checked and
// translated for an upstream, and how the answer and its errors are written back to it.

import type { Call } from "../client/internal.ts";
import type { ProtocolName, StreamChatOptions } from "../core/chat_options.ts";
import type { ChatResult } from "../core/chat_result.ts";
import type { AnswerEncoder } from "./answer_encoder.ts";
import { AnthropicEncoder } from "./anthropic_events.ts";
import { anthropicErrorBody, toAnthropicMessage } from "./anthropic_shapes.ts";
import { anthropicRefusal, anthropicToChat, checkAnthropic } from "./anthropic_request.ts";
import { ChunkEncoder, type RelayItem } from "./chunks.ts";
import { toChatCompletion } from "./completion.ts";
import { errorBody, type RelayFailure } from "./error_response.ts";
import { relayChat } from "./forward.ts";
import { passThroughCall } from "./passthrough.ts";
import { chunkEncoder, withProgress } from "./progress.ts";
import { checkChat, invalid, parseJsonObject } from "./request_body.ts";
import { ResponsesEncoder } from "./responses_events.ts";
import { toResponse } from "./responses_whole.ts";
import { checkResponses, responsesRefusal, responsesToChat } from "./responses_request.ts";
import { canHonour, translateRequest } from "./translate_request.ts";
import type { PieceTap } from "./upstream_body.ts";

type Json = Record<string, unknown>;

/** What one answer needs to be written, besides the call (it travels to a resumable stream). */
export interface AnswerInfo {
  id: string;
  model: string;
  includeUsage: boolean;
  progress?: boolean;
  /** The caller's protocol (default `openai-chat`). */
  protocol?: ProtocolName;
}

export interface Inbound {
  readonly protocol: ProtocolName;
  /** The answer's id before an upstream names one: `chatcmpl-`, `msg_`, `resp_`. */
  readonly idPrefix: string;
  read(text: string): { json: Json } | { failure: RelayFailure };
  /** Why an upstream of `protocol` cannot take `body` (a 400 when none can), or `undefined`. */
  refusal(body: Json, protocol: ProtocolName): string | undefined;
  refused(reason: string): RelayFailure;
  /** `body` for an upstream of `protocol`, its model set when the upstream names one. */
  bodyFor(body: Json, protocol: ProtocolName, model: string | undefined): Json;
  errorBody(failure: RelayFailure): unknown;
  /** A `stream: false` answer; `logprobs` only for chat. */
  whole(result: ChatResult, id: string, model: string, logprobs: unknown): Json;
}

const chat: Inbound = {
  protocol: "openai-chat",
  idPrefix: "chatcmpl-",
  read: (text) => checked(text, checkChat),
  refusal: (body, protocol) => canHonour(body, protocol) ? undefined : "`response_format`",
  refused: (reason) =>
    refusal(
      `None of this relay's upstreams can honour ${reason} (Anthropic Messages has no ` +
        "equivalent); leave it out, or add an upstream that has one.",
    ),
  bodyFor: translateRequest,
  errorBody,
  whole: toChatCompletion,
};

const anthropic: Inbound = {
  protocol: "anthropic-messages",
  idPrefix: "msg_",
  read: (text) => checked(text, checkAnthropic),
  refusal: (body, protocol) =>
    protocol === "anthropic-messages" ? undefined : anthropicRefusal(body),
  refused: (reason) =>
    refusal(
      `The request has ${reason}, which only an Anthropic Messages upstream takes, and ` +
        "none of this relay's upstreams is one; leave them out.",
    ),
  bodyFor: viaChat("anthropic-messages", anthropicToChat),
  errorBody: anthropicErrorBody,
  whole: toAnthropicMessage,
};

const responses: Inbound = {
  protocol: "openai-responses",
  idPrefix: "resp_",
  read: (text) => checked(text, checkResponses),
  refusal: (body, protocol) => protocol === "openai-responses" ? undefined : responsesRefusal(body),
  refused: (reason) =>
    refusal(
      `The request has ${reason}, which needs state or tools only a Responses API ` +
        "upstream has (the relay keeps no conversation state), and none of this relay's " +
        "upstreams speaks it; leave it out.",
    ),
  bodyFor: viaChat("openai-responses", responsesToChat),
  errorBody,
  whole: toResponse,
};

export const INBOUND: Readonly<Record<ProtocolName, Inbound>> = {
  "openai-chat": chat,
  "anthropic-messages": anthropic,
  "openai-responses": responses,
};

export function encoderFor(answer: AnswerInfo): AnswerEncoder {
  const { id, model, protocol } = answer;
  if (protocol === undefined || protocol === "openai-chat") {
    return chunkEncoder(id, model, answer.includeUsage, answer.progress);
  }
  const encoder = protocol === "anthropic-messages"
    ? new AnthropicEncoder(id, model)
    : new ResponsesEncoder(id, model);
  return answer.progress === true ? withProgress(encoder) : encoder;
}

/** The call, with the fast path for chat and pass-through for the caller's own protocol. */
export function callFor(
  options: StreamChatOptions,
  encoder: AnswerEncoder,
  protocol: ProtocolName | undefined,
  tap: PieceTap | undefined,
): Call<RelayItem> {
  if (encoder instanceof ChunkEncoder) return relayChat(options, encoder, tap);
  return passThroughCall(options, protocol ?? "openai-chat");
}

/** An upstream of `own` takes the body as sent (`stream` is the client's to set). */
function viaChat(own: ProtocolName, toChat: (body: Json) => Json): Inbound["bodyFor"] {
  return (body, protocol, model) => {
    if (protocol !== own) return translateRequest(toChat(body), protocol, model);
    const { stream: _stream, ...rest } = body;
    if (model !== undefined) rest.model = model;
    return rest;
  };
}

function checked(
  text: string,
  check: (body: Json) => RelayFailure | undefined,
): { json: Json } | { failure: RelayFailure } {
  const parsed = parseJsonObject(text);
  if ("failure" in parsed) return parsed;
  const failure = check(parsed.json);
  return failure === undefined ? parsed : { failure };
}

function refusal(message: string): RelayFailure {
  return invalid(message, "unsupported_parameter");
}
