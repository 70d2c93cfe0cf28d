// Which Responses output items are tool calls, what their input is, and whose they are.

import type { EventData } from "./event_data.ts";

/** Output item types that are calls → their `ToolCall.type`. */
export const CALL_KINDS: Record<string, string | undefined> = {
  function_call: "function",
  custom_tool_call: "custom",
  apply_patch_call: "apply_patch",
  shell_call: "shell",
  local_shell_call: "local_shell",
  computer_call: "computer",
  mcp_approval_request: "mcp_approval_request",
  tool_search_call: "tool_search",
};

/** A function's (or MCP approval's) arguments, a custom tool's input, else the action's JSON. */
export function argumentsOf(item: EventData): string {
  const args = item?.arguments;
  if (typeof args === "string") return args;
  if (typeof item?.input === "string") return item.input;
  // A tool search's arguments are an object; an action kind's input is its action.
  const action = args ?? item?.action ?? item?.actions ?? item?.operation;
  return action == null ? "" : JSON.stringify(action);
}

/** The custom tools `response.tools` declares; `undefined`: none, or a tool search may add some. */
export function customToolNames(tools: unknown): string[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const names: string[] = [];
  for (const tool of tools as EventData[]) {
    if (tool?.type === "tool_search") return undefined;
    // A namespace lists its tools inside.
    for (const t of Array.isArray(tool?.tools) ? [tool, ...tool.tools] : [tool]) {
      if (t?.type === "custom" && typeof t.name === "string") names.push(t.name);
    }
  }
  return names;
}

/**
 * Whether the provider ran a call item itself, by the item's own signals: a shell call in a
 * hosted container (`environment`), a tool search it ran (`execution`), a custom tool call named
 * after no custom tool the response declares (xAI runs its search tools so).
 */
export function ranByProvider(item: EventData, customTools: string[] | undefined): boolean {
  switch (item?.type) {
    case "shell_call": {
      const environment = item.environment?.type;
      return typeof environment === "string" && environment !== "local";
    }
    case "tool_search_call":
      return item.execution !== "client";
    case "custom_tool_call":
      return customTools !== undefined && !customTools.includes(item.name);
    default:
      return false;
  }
}

/** The `ToolCall.type` of an unknown item kind with a `call_id` (`foo_call` → `"foo"`). */
export function unknownCallKind(item: EventData): string | undefined {
  const kind = item?.type;
  if (typeof kind !== "string" || CALL_KINDS[kind] !== undefined || kind.endsWith("_output")) {
    return undefined;
  }
  if (typeof item.call_id !== "string" || item.call_id === "") return undefined;
  return kind.endsWith("_call") ? kind.slice(0, -5) : kind;
}
