/**
 * stopstream: an interruptible, retrying, fetch-native streaming client for LLM APIs.
 *
 * @module
 */

export { ChatStream, streamChat } from "./client/stream_chat.ts";
export { createRetryBudget } from "./core/retry_budget.ts";
export type { RetryBudget, RetryBudgetOptions } from "./core/retry_budget.ts";
export {
  APIStatusError,
  ConnectionError,
  InterruptedError,
  PartialStreamError,
  RedirectError,
  StopstreamError,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "./core/error_classes.ts";
export {
  isAPIStatusError,
  isConnectionError,
  isInterruptedError,
  isPartialStreamError,
  isRedirectError,
  isStopstreamError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
} from "./core/error_guards.ts";
export type { RedirectReason, TimeoutPhase } from "./core/error_classes.ts";
export type {
  PartialPolicy,
  ProtocolName,
  RetryOptions,
  StreamChatOptions,
  Timeouts,
} from "./core/chat_options.ts";
export type {
  AssistantMessage,
  ChatOutput,
  ChatResult,
  Citation,
  FinishReason,
  ReasoningDetail,
  ResultTarget,
  StreamEvent,
  ToolCall,
  TraceEntry,
  Usage,
} from "./core/chat_result.ts";
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
