/**
 * The public data types in one import: the options of a call (`chat_options.ts`) and what it
 * produces, its events and result (`chat_result.ts`). Re-exports only.
 *
 * @module
 */

export type {
  PartialPolicy,
  ProtocolName,
  RetryOptions,
  StreamChatOptions,
  Timeouts,
} from "./chat_options.ts";
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
  Usage,
} from "./chat_result.ts";
