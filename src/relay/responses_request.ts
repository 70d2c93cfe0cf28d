// A Responses API request: checked, and translated to chat completions for an upstream of another
// protocol (translate_request.ts takes it on from there to Anthropic Messages).

import type { RelayFailure } from "./error_response.ts";
import { copy, invalid, isRecord } from "./request_body.ts";
import { functionFields } from "./translate_request.ts";

type Json = Record<string, unknown>;

/** Input items with a chat completions counterpart; any other needs a Responses upstream. */
const PORTABLE_ITEMS = new Set(["message", "function_call", "function_call_output", "reasoning"]);

export function checkResponses(body: Json): RelayFailure | undefined {
  if (typeof body.model !== "string") return invalid("`model` must be a string.");
  const input = body.input;
  if (typeof input !== "string" && !(Array.isArray(input) && input.every(isRecord))) {
    return invalid("`input` must be a string or an array of input items (objects).");
  }
  for (const key of ["stream", "background", "store"]) {
    if (body[key] != null && typeof body[key] !== "boolean") {
      return invalid(`\`${key}\` must be a boolean (true or false).`, "invalid_type");
    }
  }
  if (body.instructions != null && typeof body.instructions !== "string") {
    return invalid("`instructions` must be a string.", "invalid_type");
  }
  const max = body.max_output_tokens;
  if (max != null && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) {
    return invalid("`max_output_tokens` must be a whole number of at least 1.", "invalid_type");
  }
  if (body.tools != null && !(Array.isArray(body.tools) && body.tools.every(isRecord))) {
    return invalid("`tools` must be an array of objects.");
  }
  return undefined;
}

/** The field another protocol's upstream cannot take (the relay keeps no conversation state). */
export function responsesRefusal(body: Json): string | undefined {
  if (body.previous_response_id != null) return "`previous_response_id`";
  if (body.conversation != null) return "`conversation`";
  if (body.background === true) return "`background: true`";
  for (const tool of (body.tools ?? []) as Json[]) {
    if (tool.type !== "function") {
      return `hosted tools (\`tools[].type\` \`${String(tool.type).slice(0, 60)}\`)`;
    }
  }
  for (const item of Array.isArray(body.input) ? body.input as Json[] : []) {
    const type = item.type ?? "message";
    if (!PORTABLE_ITEMS.has(String(type))) {
      return `input items of type \`${String(type).slice(0, 60)}\``;
    }
  }
  return undefined;
}

export function responsesToChat(body: Json): Json {
  const messages: Json[] = [];
  if (typeof body.instructions === "string") {
    messages.push({ role: "system", content: body.instructions });
  }
  if (typeof body.input === "string") messages.push({ role: "user", content: body.input });
  else for (const item of body.input as Json[]) addItem(messages, item);
  const out: Json = { model: body.model, messages };
  if (body.stream === true) out.stream = true;
  // The client always streams from the upstream; usage is part of every answer here.
  out.stream_options = { include_usage: true };
  if (body.max_output_tokens != null) out.max_tokens = body.max_output_tokens;
  copy(body, out, "temperature", "top_p", "parallel_tool_calls", "user");
  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  if (typeof reasoning.effort === "string") out.reasoning_effort = reasoning.effort;
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  if (format?.type === "json_schema") {
    const { type: _type, ...schema } = format;
    out.response_format = { type: "json_schema", json_schema: schema };
  } else if (format?.type === "json_object") out.response_format = { type: "json_object" };
  const tools = (body.tools ?? []) as Json[];
  if (tools.length > 0) {
    out.tools = tools.map((t) => ({ type: "function", function: functionFields(t) }));
  }
  const choice = body.tool_choice;
  if (typeof choice === "string") out.tool_choice = choice;
  else if (isRecord(choice) && choice.type === "function") {
    out.tool_choice = { type: "function", function: { name: choice.name } };
  }
  return out;
}

function addItem(messages: Json[], item: Json): void {
  const type = item.type ?? "message";
  if (type === "function_call") {
    const call = {
      id: item.call_id,
      type: "function",
      function: { name: item.name, arguments: item.arguments },
    };
    const last = messages[messages.length - 1];
    // Parallel calls are one assistant turn with several tool calls.
    if (last?.role === "assistant" && Array.isArray(last.tool_calls)) last.tool_calls.push(call);
    else messages.push({ role: "assistant", content: null, tool_calls: [call] });
  } else if (type === "function_call_output") {
    const output = typeof item.output === "string" ? item.output : JSON.stringify(item.output);
    messages.push({ role: "tool", tool_call_id: item.call_id, content: output });
  } else if (type === "message") {
    const role = item.role === "developer" ? "system" : item.role;
    messages.push({ role, content: contentOf(item.content, role === "user") });
  }
  // A `reasoning` item has no chat counterpart: it is left out.
}

function contentOf(content: unknown, user: boolean): unknown {
  if (typeof content === "string") return content;
  const parts: Json[] = [];
  let text = "";
  for (const part of Array.isArray(content) ? content.filter(isRecord) : []) {
    if (typeof part.text === "string") {
      text += part.text;
      parts.push({ type: "text", text: part.text });
    } else if (part.type === "input_image" && typeof part.image_url === "string") {
      parts.push({ type: "image_url", image_url: { url: part.image_url } });
    }
  }
  // Only a user turn may carry images; other roles take plain text.
  return user ? parts : text;
}
