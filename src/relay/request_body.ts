import { invalidRequest, type RelayFailure } from "./error_response.ts";

export async function readLimited(
  request: Request,
  maxBytes: number,
): Promise<string | RelayFailure> {
  const message = `The request body is larger than ${maxBytes} bytes.`;
  const tooLarge = invalidRequest(413, message, "request_too_large");
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return tooLarge;
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return tooLarge;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Real requests nest a dozen levels; deeper ones only probe runtimes' recursion limits. */
export const MAX_JSON_DEPTH = 64;

/** A JSON object, not nested past {@linkcode MAX_JSON_DEPTH}, or why not. */
export function parseJsonObject(
  text: string,
): { json: Record<string, unknown> } | { failure: RelayFailure } {
  if (tooDeep(text, MAX_JSON_DEPTH)) {
    const message =
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`;
    return { failure: invalid(message, "invalid_body") };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { failure: invalid("The request body is not valid JSON.", "invalid_json") };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { failure: invalid("The request body must be a JSON object.", "invalid_body") };
  }
  return { json: json as Record<string, unknown> };
}

/** `undefined` when `body` is a chat completions request the relay takes. */
export function checkChat(body: Record<string, unknown>): RelayFailure | undefined {
  if (!Array.isArray(body.messages)) {
    return invalid("The request body must have a `messages` array.", "invalid_body");
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") {
    // "true" must not quietly become a non-streaming answer.
    return invalid("`stream` must be a boolean (true or false).", "invalid_type");
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    // The relay assembles and retries exactly one choice.
    return invalid(
      "The relay returns one choice per request: `n` must be 1 (or absent).",
      "unsupported_parameter",
    );
  }
  return undefined;
}

/** One pass, no allocation; malformed JSON is left for `JSON.parse` to refuse. */
function tooDeep(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return false;
}

/** Named in a 400: the field, what it must be. */
export function invalid(message: string, code = "invalid_body"): RelayFailure {
  return invalidRequest(400, message, code);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `from`'s `keys` that are set (not `undefined` or `null`), onto `to`. */
export function copy(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  ...keys: string[]
): void {
  for (const key of keys) {
    if (from[key] !== undefined && from[key] !== null) to[key] = from[key];
  }
}
