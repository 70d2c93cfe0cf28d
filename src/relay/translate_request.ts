// OpenAI chat completions bodies for Anthropic Messages and OpenAI Responses upstreams. Pure:
// the input is never mutated.

import type { ProtocolName } from "../core/chat_options.ts";
import { copy, isRecord } from "./request_body.ts";

type Json = Record<string, unknown>;

/** Anthropic requires `max_tokens`; OpenAI clients usually leave it out. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** Anthropic has no `response_format`: dropping it would hand prose where JSON was asked. */
export function canHonour(body: Json, protocol: ProtocolName): boolean {
  const format = body.response_format;
  return protocol !== "anthropic-messages" || !isRecord(format) || format.type === "text";
}

export function translateRequest(
  body: Json,
  protocol: ProtocolName,
  model: string | undefined,
): Json {
  const { stream, ...rest } = body;
  if (model !== undefined) rest.model = model;
  if (protocol === "anthropic-messages") return toAnthropic(rest);
  if (protocol === "openai-responses") return toResponses(rest);
  // A caller who asked no usage asks none of an `openai-chat` upstream: else events forwarded as
  // they are (forward.ts) would carry the `"usage": null` OpenAI adds for those who ask.
  const options = rest.stream_options;
  if (
    stream === true && (options == null || (isRecord(options) && options.include_usage == null))
  ) {
    rest.stream_options = { ...(isRecord(options) ? options : {}), include_usage: false };
  }
  return rest;
}

function toAnthropic(body: Json): Json {
  const system: string[] = [];
  const messages: Array<{ role: string; content: Json[] }> = [];
  const push = (role: string, blocks: Json[]): void => {
    const last = messages[messages.length - 1];
    // Consecutive turns of one role (e.g. several tool results) become one Anthropic turn.
    // A loop, not push(...blocks): a turn may have more parts than a call takes arguments.
    if (last !== undefined && last.role === role) { for (const b of blocks) last.content.push(b); }
    else messages.push({ role, content: blocks });
  };
  for (const message of body.messages as unknown[]) {
    const m = (isRecord(message) ? message : {}) as Json;
    if (m.role === "system" || m.role === "developer") {
      system.push(textOf(m.content));
    } else if (m.role === "tool") {
      push("user", [{
        type: "tool_result",
        tool_use_id: idOf(m.tool_call_id),
        content: textOf(m.content),
      }]);
    } else if (m.role === "assistant") {
      const blocks: Json[] = [];
      const text = textOf(m.content);
      if (text !== "") blocks.push({ type: "text", text });
      for (const call of toolCallsOf(m)) {
        blocks.push({
          type: "tool_use",
          id: call.id,
          name: call.name,
          input: parseArgs(call.args),
        });
      }
      push("assistant", blocks);
    } else {
      push("user", anthropicParts(m.content));
    }
  }
  const out: Json = {
    model: body.model,
    messages,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  if (system.length > 0) out.system = system.join("\n\n");
  copy(body, out, "temperature", "top_p");
  if (typeof body.stop === "string") out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop)) out.stop_sequences = body.stop;
  const tools = functionTools(body.tools);
  if (tools.length > 0) {
    out.tools = tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters ?? { type: "object", properties: {} },
    }));
  }
  const choice = body.tool_choice;
  if (choice === "auto") out.tool_choice = { type: "auto" };
  else if (choice === "required") out.tool_choice = { type: "any" };
  else if (choice === "none") out.tool_choice = { type: "none" };
  else if (isRecord(choice) && isRecord(choice.function)) {
    out.tool_choice = { type: "tool", name: choice.function.name };
  }
  // One call at a time: Anthropic says so on `tool_choice` (which `none` takes no flags on).
  if (body.parallel_tool_calls === false && tools.length > 0 && choice !== "none") {
    out.tool_choice = {
      ...(out.tool_choice as Json ?? { type: "auto" }),
      disable_parallel_tool_use: true,
    };
  }
  if (typeof body.user === "string") out.metadata = { user_id: body.user };
  return out;
}

function toResponses(body: Json): Json {
  const input: Json[] = [];
  for (const message of body.messages as unknown[]) {
    const m = (isRecord(message) ? message : {}) as Json;
    if (m.role === "tool") {
      input.push({
        type: "function_call_output",
        call_id: idOf(m.tool_call_id),
        output: textOf(m.content),
      });
    } else if (m.role === "assistant") {
      const text = textOf(m.content);
      if (text !== "") input.push({ role: "assistant", content: text });
      for (const call of toolCallsOf(m)) {
        input.push({
          type: "function_call",
          call_id: call.id,
          name: call.name,
          arguments: call.args,
        });
      }
    } else if (m.role === "system" || m.role === "developer") {
      input.push({ role: m.role, content: textOf(m.content) });
    } else {
      input.push({ role: "user", content: responsesParts(m.content) });
    }
  }
  const out: Json = { model: body.model, input, store: false };
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined) out.max_output_tokens = maxTokens;
  copy(body, out, "temperature", "top_p", "parallel_tool_calls", "user");
  if (typeof body.reasoning_effort === "string") out.reasoning = { effort: body.reasoning_effort };
  // Structured output: chat's `response_format` is the Responses API's `text.format`, with the
  // schema's fields one level up (`{ type: "json_schema", name, schema, strict }`).
  const format = body.response_format;
  if (isRecord(format)) {
    const schema = format.type === "json_schema" && isRecord(format.json_schema)
      ? format.json_schema
      : {};
    out.text = { format: { ...schema, type: format.type } };
  }
  const tools = functionTools(body.tools);
  if (tools.length > 0) {
    out.tools = tools.map((t) => ({ type: "function", ...functionFields(t) }));
  }
  const choice = body.tool_choice;
  if (typeof choice === "string") out.tool_choice = choice;
  else if (isRecord(choice) && isRecord(choice.function)) {
    out.tool_choice = { type: "function", name: choice.function.name };
  }
  return out;
}

function anthropicParts(content: unknown): Json[] {
  if (!Array.isArray(content)) return [{ type: "text", text: textOf(content) }];
  return content.map((part): Json => {
    if (isRecord(part) && part.type === "image_url" && isRecord(part.image_url)) {
      const url = idOf(part.image_url.url);
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      return data
        ? { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } }
        : { type: "image", source: { type: "url", url } };
    }
    return { type: "text", text: textOf([part]) };
  });
}

function responsesParts(content: unknown): unknown {
  if (!Array.isArray(content)) return textOf(content);
  return content.map((part): Json => {
    if (isRecord(part) && part.type === "image_url" && isRecord(part.image_url)) {
      return { type: "input_image", image_url: part.image_url.url };
    }
    return { type: "input_text", text: textOf([part]) };
  });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (isRecord(part) && typeof part.text === "string") text += part.text;
  }
  return text;
}

function toolCallsOf(message: Json): Array<{ id: string; name: string; args: string }> {
  if (!Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    return {
      id: idOf(call.id),
      name: idOf(fn.name),
      args: typeof fn.arguments === "string" ? fn.arguments : "{}",
    };
  });
}

/** A function tool's fields: flat in a Responses tool, under `function` in a chat one. */
export function functionFields(tool: Json): Json {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters ?? { type: "object", properties: {} },
    ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
  };
}

/** The `function` of each function tool. */
function functionTools(tools: unknown): Json[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter(isRecord).map((t) => t.function).filter(isRecord);
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args === "" ? "{}" : args);
  } catch {
    // A model's malformed arguments still have to round-trip; Anthropic wants an object.
    return { _raw: args };
  }
}

/** Strings and numbers only: `String()` of an object can throw (`{"toString":1}`). */
function idOf(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}
