/**
 * stopstream: stream LLM answers over Server-Sent Events from OpenAI-compatible endpoints,
 * Anthropic and the OpenAI Responses API — with one `AbortSignal` that stops every phase at
 * once, retries that never repeat output, and stall detection that ignores keep-alive pings.
 *
 * @example
 * ```ts
 * import { isInterruptedError, streamChat } from "@stopstream/stopstream";
 *
 * const controller = new AbortController();
 * const stream = streamChat({
 *   baseURL: "https://api.openai.com/v1",
 *   apiKey: Deno.env.get("OPENAI_API_KEY"),
 *   body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Write a haiku" }] },
 *   signal: controller.signal,
 * });
 * try {
 *   for await (const event of stream) {
 *     if (event.type === "text") console.log(event.text);
 *     if (event.type === "retry") console.error(`retrying in ${event.delayMs} ms`);
 *   }
 *   const result = await stream.result;
 *   console.log(result.finishReason, result.usage?.totalTokens);
 * } catch (error) {
 *   if (!isInterruptedError(error)) throw error;
 * }
 * ```
 *
 * @module
 */

export * from "./src/index.ts";
