/**
 * The `is*` guards recognise errors from a second copy of the package (an npm and a JSR copy in
 * one app, docs/errors.md), where `instanceof` does not: they check the name and the brand.
 * The second copy is the same source loaded again as another module instance.
 */

import { describe, expect, test } from "vitest";
import * as here from "../../src/core/error_classes.ts";
import * as guards from "../../src/core/error_guards.ts";
import type { ChatResult } from "../../src/core/chat_result.ts";

// A query makes Vite load the file again, as a module of its own: its classes are not ours.
const SECOND_COPY = "../../src/core/error_classes.ts?second-copy";
const other: typeof here = await import(/* @vite-ignore */ SECOND_COPY);

const partial = { content: "", toolCalls: [] } as unknown as ChatResult;

/** One error of each kind, made with `classes`, and the guard that must recognise it. */
function samples(classes: typeof here): [string, Error, (value: unknown) => boolean][] {
  return [
    ["InterruptedError", new classes.InterruptedError("stop"), guards.isInterruptedError],
    ["APIStatusError", new classes.APIStatusError(503, {}, "busy"), guards.isAPIStatusError],
    ["ConnectionError", new classes.ConnectionError("reset"), guards.isConnectionError],
    ["TimeoutError", new classes.TimeoutError("idle", 1_000), guards.isTimeoutError],
    ["StreamProtocolError", new classes.StreamProtocolError("html"), guards.isStreamProtocolError],
    [
      "UpstreamStreamError",
      new classes.UpstreamStreamError("overloaded", {}, "overloaded_error", true),
      guards.isUpstreamStreamError,
    ],
    [
      "PartialStreamError",
      new classes.PartialStreamError(partial, new classes.ConnectionError("reset")),
      guards.isPartialStreamError,
    ],
    ["RedirectError", new classes.RedirectError("loop", 302, undefined), guards.isRedirectError],
  ];
}

describe("the error guards", () => {
  test("the second copy is another module: its errors are not instances of ours", () => {
    expect(other.APIStatusError).not.toBe(here.APIStatusError);
    expect(new other.APIStatusError(503, {}, "busy")).not.toBeInstanceOf(here.APIStatusError);
  });

  test.each(samples(other))("recognise %s from the other copy", (name, error, guard) => {
    expect(error.name).toBe(name);
    expect(error).not.toBeInstanceOf(here.StopstreamError);
    expect(guard(error)).toBe(true);
    expect(guards.isStopstreamError(error)).toBe(true);
  });

  test("each guard recognises its own kind only", () => {
    const all = samples(here);
    for (const [name, , guard] of all) {
      const recognised = all.filter(([, error]) => guard(error)).map(([kind]) => kind);
      expect(recognised, name).toEqual([name]);
    }
  });

  test("the name alone is not enough: an unbranded error of the same name is not ours", () => {
    const lookalike = Object.assign(new Error("busy"), { name: "APIStatusError", status: 503 });
    expect(guards.isAPIStatusError(lookalike)).toBe(false);
    expect(guards.isStopstreamError(lookalike)).toBe(false);
    expect(guards.isAPIStatusError({ name: "APIStatusError" })).toBe(false);
  });
});
