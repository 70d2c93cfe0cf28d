/**
 * Expected results of the OpenAI-compatible recordings, written by reading each recording (see
 * SOURCES.md for where it comes from). Long strings are checked by their ends and length.
 *
 * @module
 */

import type { Expected } from "./expected.ts";
import { list, text } from "./matchers.ts";

/** OpenAI-compatible recordings → what the call must give. */
export const CHAT: Record<string, Expected> = {
  "chat/openai_parallel_tools.sse": {
    result: {
      id: "chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63",
      model: "gpt-4o-2024-08-06",
      content: "",
      toolCalls: [
        {
          index: 0,
          id: "call_JMW1whyEaYG438VE1OIflxA2",
          name: "GetWeatherArgs",
          arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
        },
        {
          index: 1,
          id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
          name: "get_stock_price",
          arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
        },
      ],
      finishReason: "tool_calls",
      providerFinishReason: "tool_calls",
      usage: { inputTokens: 149, outputTokens: 60, totalTokens: 209 },
      output: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_JMW1whyEaYG438VE1OIflxA2",
            type: "function",
            function: {
              name: "GetWeatherArgs",
              arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
            },
          },
          {
            id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
            type: "function",
            function: {
              name: "get_stock_price",
              arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
            },
          },
        ],
      },
    },
  },
  "chat/openai_refusal.sse": {
    result: {
      content: "",
      refusal: "I'm sorry, I can't assist with that request.",
      finishReason: "stop",
      usage: { inputTokens: 79, outputTokens: 11 },
      output: {
        role: "assistant",
        content: null,
        refusal: "I'm sorry, I can't assist with that request.",
      },
    },
  },
  "chat/openai_refusal_logprobs.sse": {
    result: {
      content: "",
      refusal: "I'm very sorry, but I can't assist with that.",
      finishReason: "stop",
      usage: { inputTokens: 79, outputTokens: 12 },
    },
  },
  "chat/openai_max_tokens.sse": {
    result: {
      content: '{"',
      finishReason: "length",
      providerFinishReason: "length",
      usage: { inputTokens: 79, outputTokens: 1, totalTokens: 80 },
    },
  },
  "chat/openai_text.sse": {
    result: {
      id: "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL",
      content: text(
        "I'm unable to provide real-time weather updates.",
        "website or a weather app.",
        159,
      ),
      finishReason: "stop",
      usage: { inputTokens: 14, outputTokens: 30, totalTokens: 44 },
      output: { role: "assistant", content: text("I'm unable", "weather app.", 159) },
    },
    absent: ["citations", "refusal"],
  },
  "chat/mistral_content_parts.sse": {
    // Defect 5: `delta.content` is a list of thinking and text parts.
    result: {
      id: "a4e29c5b82f94d67b23e108a7c9df6e1",
      model: "magistral-medium-2507",
      content: "2 + 2 = 4",
      reasoning: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: 46, totalTokens: 56 },
      // The provider's own shape: the parts, each kind's run merged.
      output: {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking: [{
              type: "text",
              text: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
            }],
          },
          { type: "text", text: "2 + 2 = 4" },
        ],
      },
    },
  },
  "chat/mistral_thinking_parts.sse": {
    result: {
      model: "magistral-medium-latest",
      content: text(
        "To cross the street safely, follow these steps:\n\n1",
        "ensure a safe crossing.",
        607,
      ),
      reasoning: text(
        "Okay, the user is asking how to cross the street. ",
        "clear and concise response.",
        421,
      ),
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: 232 },
      // 58 thinking parts, then the answer as plain strings: one part of each.
      output: {
        content: [
          {
            type: "thinking",
            thinking: [{ type: "text", text: text("Okay, the user", "concise response.", 421) }],
          },
          { type: "text", text: text("To cross the street", "safe crossing.", 607) },
        ],
      },
    },
  },
  "chat/mistral_tool_call_no_index.sse": {
    result: {
      toolCalls: [{
        index: 0,
        id: "gSIMJiOkT",
        name: "weather",
        arguments: '{"location": "San Francisco"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 124, outputTokens: 22, totalTokens: 146 },
    },
  },
  "chat/perplexity_citations.sse": {
    result: {
      id: "58cb9740-f356-49e9-b71e-a02a1376c1b9",
      model: "sonar",
      content: "The current population of **[2][3]",
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: 336, totalTokens: 346 },
      citations: list(
        7,
        { url: "https://populationstat.com/united-states/san-francisco" },
        { url: "https://en.wikipedia.org/wiki/San_Francisco" },
      ),
    },
  },
  "chat/azure_content_filter.sse": {
    result: {
      // The first chunk (prompt_filter_results) has an empty id and model.
      id: "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt",
      model: "gpt-5-nano-2025-08-07",
      content: "Capital of Denmark.",
      finishReason: "stop",
      usage: {
        inputTokens: 15,
        outputTokens: 78,
        totalTokens: 93,
        reasoningTokens: 64,
        cachedInputTokens: 0,
      },
    },
  },
  "chat/xai_reasoning_tool_call.sse": {
    result: {
      model: "grok-3-mini",
      reasoning: text(
        "First, the user is asking about the weather in San",
        "this is the logical next step.",
        1069,
      ),
      toolCalls: [{
        id: "call_79382389",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      }],
      finishReason: "tool_calls",
      // xAI's total counts reasoning tokens that completion_tokens leaves out.
      usage: {
        inputTokens: 307,
        outputTokens: 26,
        totalTokens: 560,
        reasoningTokens: 227,
        cachedInputTokens: 306,
      },
      output: {
        content: null,
        reasoning_content: text("First, the user", "logical next step.", 1069),
      },
    },
  },
  "chat/alibaba_tool_call.sse": {
    result: {
      model: "qwen3-max",
      // Later fragments carry `id: ""`: still the same call.
      toolCalls: [{
        index: 0,
        id: "call_eee11723464a4b9eb8cee71d",
        name: "weather",
        arguments: '{"location": "San Francisco"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 295, outputTokens: 22, totalTokens: 317 },
    },
  },
  "chat/groq_tool_call.sse": {
    result: {
      model: "llama-3.3-70b-versatile",
      toolCalls: [{ id: "tk85n1k4m", name: "weather", arguments: "{}" }],
      finishReason: "tool_calls",
      usage: { inputTokens: 210, outputTokens: 15, totalTokens: 225 },
    },
  },
  "chat/deepseek_tool_call.sse": {
    result: {
      model: "deepseek-reasoner",
      reasoning: text(
        "The user is asking for the weather in San Francisc",
        'parameter set to "San Francisco".',
        191,
      ),
      toolCalls: [{
        id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
        name: "weather",
        arguments: '{"location": "San Francisco"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 339, outputTokens: 83, cachedInputTokens: 320, reasoningTokens: 39 },
      // DeepSeek wants reasoning_content back within a tool-calling turn: kept under its name.
      output: {
        content: null,
        reasoning_content: text("The user is asking", '"San Francisco".', 191),
      },
    },
  },
  "chat/deepseek_reasoning.sse": {
    result: {
      id: "33be18fc-3842-486c-8c29-dd8e578f7f20",
      model: "deepseek-reasoner",
      content: "Hello there! 😊 How can I help you today?",
      reasoning: text('Hmm, the user just said "Hello".', "and that's okay too.", 882),
      finishReason: "stop",
      usage: { inputTokens: 6, outputTokens: 212, totalTokens: 218, reasoningTokens: 198 },
    },
  },
  "chat/groq_reasoning_tool_call.sse": {
    result: {
      model: "openai/gpt-oss-120b",
      reasoning: text("We need to call the function with correct paramete", 'e.g., "example".', 92),
      toolCalls: [{
        id: "fc_bfb39741-3748-4def-9886-a93fc9c64a90",
        name: "get_something_by_name",
        arguments: '{"name":"example"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 304, outputTokens: 49, reasoningTokens: 23 },
      // Groq streams `reasoning`, not `reasoning_content`: sent back under the name it came in.
      output: { reasoning: text("We need to call", '"example".', 92) },
    },
  },
  "chat/groq_error_event.sse": {
    // Reasoning arrived, then `event: error` (tool_use_failed): not retried, nothing lost.
    error: { name: "PartialStreamError", cause: "UpstreamStreamError" },
    partial: {
      reasoning: text("We need to call the tool with invalid parameters f", `Let's do that.`, 412),
    },
  },
  "chat/openrouter_reasoning_details.sse": {
    result: {
      id: "gen-1765226419-AGrwjunAftQIAgweibL8",
      model: "anthropic/claude-sonnet-4.5",
      content: "2 + 2 = 4",
      reasoning: "This is a simple arithmetic question. 2+2 equals 4.",
      finishReason: "stop",
      usage: { inputTokens: 43, outputTokens: 36, reasoningTokens: 13 },
      // The fragments of one reasoning block (index 0) merged, its signature included.
      output: {
        role: "assistant",
        content: "2 + 2 = 4",
        reasoning: "This is a simple arithmetic question. 2+2 equals 4.",
        reasoning_details: [{
          type: "reasoning.text",
          index: 0,
          format: "anthropic-claude-v1",
          text: "This is a simple arithmetic question. 2+2 equals 4.",
          signature: text("Et0BCkgIChAC", "1AXjvIcYAQ==", 304),
        }],
      },
    },
  },
  "chat/openrouter_annotations.sse": {
    result: {
      model: "deepseek/deepseek-chat",
      content: text(
        "The URL for Pydantic AI's GitHub repository is:",
        "https://github.com/pydantic/pydantic-ai",
        90,
      ),
      finishReason: "stop",
      // One annotation per chunk: all five kept.
      citations: list(5, {
        url: "https://github.com/pydantic/pydantic-ai",
        title: "AI Agent Framework, the Pydantic way - GitHub",
        start: 0,
        end: 0,
        source: { type: "url_citation" },
      }),
      output: { annotations: list(5, { type: "url_citation" }) },
    },
  },
  "chat/openrouter_error_after_finish.sse": {
    // finish_reason `length`, then a chunk carrying `error`: the provider's error wins.
    error: { name: "PartialStreamError", cause: "UpstreamStreamError" },
    partial: { reasoning: "We need to respond to a greeting. The user" },
  },
  "chat/zai_thinking.sse": {
    result: {
      model: "glm-4.7",
      content: "4",
      reasoning: text(
        "\n1.  **Analyze the User's Request:**",
        '**Draft the final response:** "4".',
        2173,
      ),
      finishReason: "stop",
      usage: { inputTokens: 13, outputTokens: 564, reasoningTokens: 561 },
    },
  },
  "chat/agent_1_tool_call.sse": {
    result: {
      id: "chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl",
      model: "gpt-4o-mini-2024-07-18",
      toolCalls: [{
        id: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
        name: "get_capital",
        arguments: '{"country":"UK"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 53, outputTokens: 15, totalTokens: 68 },
    },
  },
  "chat/agent_2_answer.sse": {
    result: {
      content: "The capital of the UK is London.",
      finishReason: "stop",
      usage: { inputTokens: 78, outputTokens: 9, totalTokens: 87 },
    },
  },
  "chat/snowflake_reasoning_details.sse": {
    // Snowflake Cortex sends its reasoning only as reasoning_details (no reasoning field), and
    // `refusal: ""` on every delta (issue 30, case 4). No finish_reason: [DONE] ends it.
    result: {
      model: "claude-sonnet-4-6",
      reasoning: "15 * 27 = 405",
      content: text("15 × 27 = **405**\n\nHere's the breakdown:", "300 + 105 = **405**", 93),
      finishReason: "stop",
      usage: { inputTokens: 45, outputTokens: 73, totalTokens: 118 },
      output: {
        role: "assistant",
        reasoning_details: [{
          type: "reasoning.text",
          id: "reasoning-text-1",
          format: "anthropic-claude-v1",
          index: 0,
          text: "15 * 27 = 405",
        }],
      },
    },
    absent: ["refusal", "providerFinishReason"],
  },
  "chat/snowflake_text.sse": {
    result: {
      id: "",
      model: "claude-sonnet-4-6",
      content: "4",
      reasoning: "",
      finishReason: "stop",
      usage: { inputTokens: 22, outputTokens: 5, totalTokens: 27 },
    },
    absent: ["refusal"],
  },
  "chat/groq_compound_search.sse": {
    // Groq compound runs its search itself (delta.executed_tools): no tool call for the caller.
    result: {
      model: "groq/compound",
      reasoning: text(
        "<think>\nTo find the current weather in San Francis",
        "high humidity.",
        6256,
      ),
      content: text("The weather in San Francisco today is partly cloud", "of 90-94%.", 200),
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 5003, outputTokens: 359, totalTokens: 5362 },
    },
  },
  "chat/groq_text_then_tool_call.sse": {
    result: {
      id: "chatcmpl-0b76b1ce-aa40-4950-9c90-a167b11d4b09",
      model: "openai/gpt-oss-120b",
      content: "",
      reasoning: text("We need to comply with tool usage now.", 'with response "no".', 727),
      toolCalls: [{
        id: "fc_299e8414-9e94-4d9c-bd06-c096f8919768",
        name: "final_result",
        arguments: '{"response":"no"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 343, outputTokens: 180, totalTokens: 523, reasoningTokens: 153 },
    },
    mine: ["fc_299e8414-9e94-4d9c-bd06-c096f8919768"],
  },
  "chat/crusoe_text.sse": {
    // Crusoe (vLLM).
    result: {
      id: "chatcmpl-bcfbe349402eb3d2",
      model: "meta-llama/Llama-3.3-70B-Instruct",
      content: "1, 2, 3, 4, 5",
      finishReason: "stop",
      usage: { inputTokens: 46, outputTokens: 14, totalTokens: 60, cachedInputTokens: 0 },
    },
  },
  "chat/huggingface_text.sse": {
    // Hugging Face's router.
    result: {
      id: "ebafdc26c3296ed027c5cd6565fa1bce",
      model: "meta-llama/llama-3.1-8b-instruct",
      content: "Paris",
      finishReason: "stop",
      usage: { inputTokens: 40, outputTokens: 2, totalTokens: 42 },
    },
  },
  "chat/openai_gpt5_text.sse": {
    result: {
      id: "chatcmpl-E4Rjs6IxaJVge9Ntk5keJsaeDy6vS",
      model: "gpt-5-2025-08-07",
      content: "Paris.",
      finishReason: "stop",
      usage: { inputTokens: 13, outputTokens: 11, totalTokens: 24, reasoningTokens: 0 },
    },
    absent: ["refusal"],
  },
  "chat/openrouter_advisor.sse": {
    // OpenRouter: processing comments, then two chunks with finish_reason "stop".
    result: {
      id: "gen-1784878121-HxA00pxmV0n2x1hZAuok",
      model: "openai/gpt-4o-mini",
      content: text("I recommend naming your Python retry library `resi", "and brandable.", 109),
      finishReason: "stop",
      usage: { inputTokens: 888, outputTokens: 74, totalTokens: 962 },
    },
  },
};
