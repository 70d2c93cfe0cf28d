// An Anthropic Messages request: checked, and translated to chat completions for an upstream of
// another protocol (translate_request.ts takes it on from there to the Responses API).

import type { RelayFailure } from "./error_response.ts";
import { copy, invalid, isRecord } from "./request_body.ts";

type Json = Record<string, unknown>;

/** Content blocks with a chat completions counterpart; any other needs an Anthropic upstream. */
const PORTABLE_BLOCKS = new Set([
  "text",
  "image",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
]);

export function checkAnthropic(body: Json): RelayFailure | undefined {
  if (typeof body.model !== "string") return invalid("`model` must be a string.");
  if (!Array.isArray(body.messages)) return invalid("`messages` must be an array.");
  const max = body.max_tokens;
  if (max === undefined) return invalid("`max_tokens` is required (Anthropic Messages).");
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1) {
    return invalid("`max_tokens` must be a whole number of at least 1.");
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    return invalid("`stream` must be a boolean (true or false).", "invalid_type");
  }
  if (body.system !== undefined && typeof body.system !== "string" && !blocks(body.system)) {
    return invalid("`system` must be a string or an array of content blocks.");
  }
  for (const [i, message] of body.messages.entries()) {
    if (!isRecord(message) || (message.role !== "user" && message.role !== "assistant")) {
      return invalid(`\`messages[${i}]\` must be an object whose \`role\` is user or assistant.`);
    }
    if (typeof message.content !== "string" && !blocks(message.content)) {
      return invalid(
        `\`messages[${i}].content\` must be a string or an array of content blocks, each an ` +
          "object with a string `type`.",
      );
    }
  }
  for (const key of ["temperature", "top_p", "top_k"]) {
    if (body[key] !== undefined && typeof body[key] !== "number") {
      return invalid(`\`${key}\` must be a number.`, "invalid_type");
    }
  }
  if (body.tools !== undefined && !(Array.isArray(body.tools) && body.tools.every(isRecord))) {
    return invalid("`tools` must be an array of objects.");
  }
  return undefined;
}

export function anthropicRefusal(body: Json): string | undefined {
  for (const message of body.messages as Json[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Json[]) {
      if (!PORTABLE_BLOCKS.has(String(block.type))) {
        return `content blocks of type \`${String(block.type).slice(0, 60)}\``;
      }
    }
  }
  for (const tool of (body.tools ?? []) as Json[]) {
    if (tool.type !== undefined && tool.type !== "custom") {
      return `server tools (\`tools[].type\` \`${String(tool.type).slice(0, 60)}\`)`;
    }
  }
  return undefined;
}

export function anthropicToChat(body: Json): Json {
  const messages: Json[] = [];
  const system = textOf(body.system);
  if (system !== "") messages.push({ role: "system", content: system });
  for (const message of body.messages as Json[]) {
    if (message.role === "assistant") messages.push(assistantTurn(message.content));
    else messages.push(...userTurn(message.content));
  }
  const out: Json = { model: body.model, messages, max_tokens: body.max_tokens };
  if (body.stream === true) out.stream = true;
  // The client always streams from the upstream; usage is part of every answer here.
  out.stream_options = { include_usage: true };
  copy(body, out, "temperature", "top_p");
  if (Array.isArray(body.stop_sequences)) out.stop = body.stop_sequences;
  const tools = (body.tools ?? []) as Json[];
  if (tools.length > 0) {
    out.tools = tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    }));
  }
  const choice = isRecord(body.tool_choice) ? body.tool_choice : undefined;
  if (choice?.type === "auto") out.tool_choice = "auto";
  else if (choice?.type === "any") out.tool_choice = "required";
  else if (choice?.type === "none") out.tool_choice = "none";
  else if (choice?.type === "tool") {
    out.tool_choice = { type: "function", function: { name: choice.name } };
  }
  if (choice?.disable_parallel_tool_use === true && tools.length > 0) {
    out.parallel_tool_calls = false;
  }
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  if (typeof metadata.user_id === "string") out.user = metadata.user_id;
  return out;
}

function assistantTurn(content: unknown): Json {
  const turn: Json = { role: "assistant", content: textOf(content) };
  const calls = list(content).filter((b) => b.type === "tool_use").map((b) => ({
    id: b.id,
    type: "function",
    function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
  }));
  if (calls.length > 0) turn.tool_calls = calls;
  return turn;
}

/** Tool results become `tool` messages, before the rest of the turn (OpenAI's order). */
function userTurn(content: unknown): Json[] {
  if (typeof content === "string") return [{ role: "user", content }];
  const turns: Json[] = [];
  const parts: Json[] = [];
  for (const block of list(content)) {
    if (block.type === "tool_result") {
      turns.push({ role: "tool", tool_call_id: block.tool_use_id, content: textOf(block.content) });
    } else if (block.type === "image" && isRecord(block.source)) {
      const source = block.source;
      const url = source.type === "base64"
        ? `data:${String(source.media_type)};base64,${String(source.data)}`
        : source.url;
      parts.push({ type: "image_url", image_url: { url } });
    } else if (block.type === "text") {
      parts.push({ type: "text", text: block.text });
    }
  }
  if (parts.length > 0) turns.push({ role: "user", content: parts });
  return turns;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of list(content)) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
  }
  return text;
}

function list(content: unknown): Json[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function blocks(value: unknown): boolean {
  return Array.isArray(value) && value.every((b) => isRecord(b) && typeof b.type === "string");
}
