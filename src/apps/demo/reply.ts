// What the demo model says: request validation and a deterministic reply plan, apart from timing.

import { isRecord } from "../../relay/request_body.ts";

export interface DemoChatRequest {
  model: string;
  messages: unknown[];
  tools: { name: string; parameters: unknown }[];
  toolChoice: unknown;
  stream: boolean;
  includeUsage: boolean;
}

/** The reply as the deltas the stream paces one by one (the faults' "words"). */
export interface DemoPlan {
  id: string;
  deltas: Record<string, unknown>[];
  finishReason: "stop" | "tool_calls";
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** The assembled assistant message, for `stream: false`. */
  message: Record<string, unknown>;
}

/** @throws {TypeError} with a message meant for a 400 answer. */
export function parseDemoRequest(json: unknown): DemoChatRequest {
  if (!isRecord(json)) throw new TypeError("The request body must be a JSON object.");
  const { messages, tools, model, stream_options: streamOptions } = json;
  if (!Array.isArray(messages)) {
    throw new TypeError("The request body must have a `messages` array.");
  }
  if (tools !== undefined && !Array.isArray(tools)) {
    throw new TypeError("`tools` must be an array when present.");
  }
  return {
    model: typeof model === "string" && model !== "" ? model : "demo",
    messages,
    tools: (tools ?? []).map(parseTool),
    toolChoice: json.tool_choice,
    stream: json.stream === true,
    includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true,
  };
}

function parseTool(tool: unknown, index: number): DemoChatRequest["tools"][number] {
  const fn = isRecord(tool) ? tool.function : undefined;
  if (!isRecord(fn) || typeof fn.name !== "string" || fn.name === "") {
    throw new TypeError(`tools[${index}].function.name must be a non-empty string.`);
  }
  return { name: fn.name, parameters: fn.parameters };
}

const TAIL = "This is the stopstream demo model, streaming a fixed reply word by word so you can " +
  "watch retries, stalls and interrupts happen without spending a single token.";
const THOUGHT = "Let me think about how to answer this: the demo model always reasons in the " +
  "same careful, deterministic way before it replies.";
const ECHO_WORDS = 10;
/** Tool arguments stream 8 code points at a time (`u`): none ends inside a surrogate pair. */
const FRAGMENT = /[\s\S]{1,8}/gu;
/** Sample argument values by JSON Schema type; any other type gets (an echo of) the user's text. */
const SAMPLES: Readonly<Record<string, unknown>> = {
  number: 42,
  integer: 42,
  boolean: true,
  array: [],
  object: {},
};

/** The same input always gives the same deltas. */
export function planDemoReply(
  request: DemoChatRequest,
  options: { reasoning?: number; words?: number },
): DemoPlan {
  const id = `chatcmpl-demo-${hash(JSON.stringify([request.model, request.messages]))}`;
  const deltas: Record<string, unknown>[] = [];
  const message: Record<string, unknown> = { role: "assistant", content: null };
  const reasoningCount = options.reasoning ?? (request.model.includes("reason") ? 8 : 0);
  if (reasoningCount > 0) {
    const words = takeWords(THOUGHT, reasoningCount);
    for (const word of words) deltas.push({ reasoning_content: word });
    message.reasoning_content = words.join("");
  }
  const last = request.messages[request.messages.length - 1];
  const callTools = request.tools.length > 0 && request.toolChoice !== "none" &&
    !(isRecord(last) && last.role === "tool");
  if (callTools) {
    const said = lastUserText(request);
    const calls = request.tools.slice(0, 2).map((tool, index) => ({
      id: `call_${id.slice(-8)}_${index}`,
      type: "function",
      function: { name: tool.name, arguments: argumentsFor(tool.parameters, said) },
    }));
    calls.forEach((call, index) => {
      const { name, arguments: args } = call.function;
      deltas.push({ tool_calls: [{ index, ...call, function: { name, arguments: "" } }] });
      for (const piece of args.match(FRAGMENT) ?? []) {
        deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    });
    message.tool_calls = calls;
  } else {
    const words = takeWords(replyText(request), options.words);
    for (const word of words) deltas.push({ content: word });
    message.content = words.join("");
  }
  const first = deltas[0];
  if (first !== undefined) {
    // OpenAI puts the role on the first chunk only; clients that key on it must still work.
    deltas[0] = callTools && reasoningCount === 0
      ? { role: "assistant", content: null, ...first }
      : { role: "assistant", ...first };
  }
  const prompt = Math.max(1, countWords(JSON.stringify(request.messages)));
  return {
    id,
    deltas,
    finishReason: callTools ? "tool_calls" : "stop",
    usage: {
      prompt_tokens: prompt,
      completion_tokens: deltas.length,
      total_tokens: prompt + deltas.length,
    },
    message,
  };
}

function replyText(request: DemoChatRequest): string {
  const last = request.messages[request.messages.length - 1];
  if (isRecord(last) && last.role === "tool") {
    return `The tool answered: "${echo(textOf(last.content))}". ${TAIL}`;
  }
  const said = lastUserText(request);
  return said === "" ? `You said nothing yet. ${TAIL}` : `You said: "${echo(said)}". ${TAIL}`;
}

function lastUserText(request: DemoChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (isRecord(message) && message.role === "user") return textOf(message.content).trim();
  }
  return "";
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => isRecord(part) && typeof part.text === "string" ? part.text : "")
    .join(" ");
}

function echo(text: string): string {
  const words = text.split(/\s+/).filter((word) => word !== "");
  const head = words.slice(0, ECHO_WORDS).join(" ");
  return words.length > ECHO_WORDS ? `${head}…` : head;
}

/** Words with their leading space, so concatenating the deltas gives back the sentence. */
function takeWords(text: string, count?: number): string[] {
  const words = text.split(" ");
  const n = count ?? words.length;
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((i === 0 ? "" : " ") + words[i % words.length]);
  return out;
}

function argumentsFor(parameters: unknown, userText: string): string {
  const properties = isRecord(parameters) ? parameters.properties : undefined;
  const args: Record<string, unknown> = {};
  if (isRecord(properties)) {
    for (const [name, schema] of Object.entries(properties).slice(0, 4)) {
      args[name] = sampleValue(schema, userText);
    }
  }
  return JSON.stringify(args);
}

function sampleValue(schema: unknown, userText: string): unknown {
  if (!isRecord(schema)) return userText;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = String(schema.type);
  if (Object.hasOwn(SAMPLES, type)) return SAMPLES[type];
  return userText === "" ? "stopstream" : echo(userText);
}

function countWords(text: string): number {
  return text.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "").length;
}

/** FNV-1a: a stable, dependency-free id that is the same for the same conversation. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
