/**
 * In-stream `event: error` for the named-event protocols (Anthropic Messages, OpenAI
 * Responses): the event name decides, so plain-text data (`data: Overloaded`) or JSON without
 * a `type` is the provider's error — an `UpstreamStreamError`, transient when its words say so —
 * never a `StreamProtocolError`.
 */

import { describe, expect, test } from "vitest";
import {
  isPartialStreamError,
  isStreamProtocolError,
  isUpstreamStreamError,
  streamChat,
} from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import {
  answer,
  collect,
  optionsFor,
  sseResponse,
  upstream,
  type WireFixture,
} from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://api.errors.test/v1";

const options = optionsFor(BASE, "m");

const errorEvent = (data: string): string => `event: error\ndata: ${data}\n\n`;
const ok = (wire: WireFixture): string[] => answer(wire, "ok");

describe.each([anthropicWire, responsesWire])("$protocol: event: error", (wire) => {
  test("plain-text data before content is a transient upstream error: retried", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) =>
        sseResponse(req, n === 1 ? [...wire.start(), errorEvent("Overloaded")] : ok(wire)),
    );
    const run = await collect(streamChat(options(wire)));
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isUpstreamStreamError(retry.error)).toBe(true);
    expect(run.error).toBeUndefined();
    expect(run.result?.content).toBe("ok");
    expect(up.count).toBe(2);
  });

  test.each([
    ["Overloaded", true],
    ["upstream connect error or disconnect/reset before headers", true],
    ["Internal server error", true],
    ["prompt is too long: 210000 tokens > 200000 maximum", false],
  ])("plain-text data %j is an UpstreamStreamError, retryable: %s", async (text, retryable) => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), errorEvent(text)]),
    );
    const error = await streamChat(options(wire, { maxRetries: 0 })).result.catch((e) => e);
    expect(isStreamProtocolError(error)).toBe(false);
    expect(isUpstreamStreamError(error) && [error.providerMessage, error.retryable, error.data])
      .toEqual([text, retryable, text]);
    expect(error.message).toBe(
      `stopstream: the provider reported an error ("${text}"); ${
        retryable ? "try again later" : "check the request"
      }`,
    );
    expect(up.count).toBe(1);
  });

  test("JSON data without a type field is read as the error it wraps", async () => {
    const data = JSON.stringify({ error: { type: "overloaded_error", message: "Overloaded" } });
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), errorEvent(data)]),
    );
    const error = await streamChat(options(wire, { maxRetries: 0 })).result.catch((e) => e);
    expect(isUpstreamStreamError(error) && [error.errorType, error.retryable]).toEqual([
      "overloaded_error",
      true,
    ]);
    expect(up.count).toBe(1);
  });

  test("an error event without data is still an upstream error, not retried", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), "event: error\ndata:\n\n"]),
    );
    const error = await streamChat(options(wire)).result.catch((e) => e);
    expect(isUpstreamStreamError(error)).toBe(true);
    expect(isUpstreamStreamError(error) && error.retryable).toBe(false);
    expect(up.count).toBe(1);
  });

  test("plain-text error after content: partial, with the upstream error as cause", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), wire.text("half"), errorEvent("Overloaded")]),
    );
    const error = await streamChat(options(wire)).result.catch((e) => e);
    expect(isPartialStreamError(error)).toBe(true);
    if (!isPartialStreamError(error)) return;
    expect(error.partial.content).toBe("half");
    expect(isUpstreamStreamError(error.cause) && error.cause.retryable).toBe(true);
    expect(up.count).toBe(1);
  });

  test("non-JSON data on any other event stays a StreamProtocolError, not retried", async () => {
    const bad = wire.protocol === "anthropic-messages"
      ? "event: content_block_delta\ndata: {oops\n\n"
      : "event: response.output_text.delta\ndata: {oops\n\n";
    const up = upstream(server, BASE, wire, (_n, req) => sseResponse(req, [...wire.start(), bad]));
    const error = await streamChat(options(wire)).result.catch((e) => e);
    expect(isStreamProtocolError(error)).toBe(true);
    expect(up.count).toBe(1);
  });
});
