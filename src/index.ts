/**
 * stopstream: an interruptible, retrying, fetch-native streaming client for LLM APIs.
 *
 * @module
 */

export { streamChat } from "./stream_chat.ts";
export { ChatStream } from "./chat_stream.ts";
export { createRetryBudget } from "./retry_budget.ts";
export type { RetryBudget, RetryBudgetOptions } from "./retry_budget.ts";
export {
  APIStatusError,
  ConnectionError,
  InterruptedError,
  isAPIStatusError,
  isConnectionError,
  isInterruptedError,
  isPartialStreamError,
  isRedirectError,
  isStopstreamError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
  PartialStreamError,
  RedirectError,
  StopstreamError,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "./errors.ts";
export type { RedirectReason, TimeoutPhase } from "./errors.ts";
export type {
  AssistantMessage,
  ChatOutput,
  ChatResult,
  Citation,
  FinishReason,
  PartialPolicy,
  ProtocolName,
  ReasoningDetail,
  ResultTarget,
  RetryOptions,
  StreamChatOptions,
  StreamEvent,
  Timeouts,
  ToolCall,
  Usage,
} from "./types.ts";
export type {
  OpenAIChatChunk,
  OpenAIContentPart,
  OpenAIToolCallDelta,
  OpenAIUsage,
} from "./protocols/openai_chat_wire.ts";
export type {
  AnthropicContentBlock,
  AnthropicDelta,
  AnthropicMessage,
  AnthropicStreamEvent,
  AnthropicUsage,
} from "./protocols/anthropic_wire.ts";
export type {
  ResponsesAnnotation,
  ResponsesContentPart,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesStreamEvent,
  ResponsesUsage,
} from "./protocols/openai_responses_wire.ts";
