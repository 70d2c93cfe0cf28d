/**
 * Fallback entries: what they inherit from the primary (keys and headers only on exactly the
 * same baseURL) and how their body merges over the primary's.
 */

import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import { ANTHROPIC, chain, PRIMARY } from "./fallback_chain.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import {
  answer,
  answers,
  chatWire,
  collect,
  errorResponse,
  sseResponse,
  upstream,
} from "./protocol_wire.ts";

const server = useMswServer();

describe("fallback entries", () => {
  test("the fallback's body merges over the primary's; key and headers stay on their origin", async () => {
    upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const second = upstream(server, ANTHROPIC, anthropicWire, answers(anthropicWire, "ok"));
    await streamChat(chain({ maxRetries: 0 })).result;
    expect(second.bodies[0]).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    });
    const headers = second.headers[0]!;
    expect(headers.get("x-api-key")).toBe("sk-ant-fallback");
    expect(headers.get("authorization")).toBeNull();
    expect(headers.get("x-team")).toBeNull();
    expect(second.count).toBe(1);
  });

  test("a fallback without its own key on another origin sends no key at all", async () => {
    upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const second = upstream(
      server,
      "https://other.test/v1",
      chatWire,
      answers(chatWire, "ok"),
    );
    await streamChat(chain({ maxRetries: 0, fallbacks: [{ baseURL: "https://other.test/v1" }] }))
      .result;
    expect(second.headers[0]!.get("authorization")).toBeNull();
    expect(second.count).toBe(1);
  });

  test("a fallback on another path of the same origin (an AI gateway) gets neither key nor headers", async () => {
    const gateway = "https://gateway.test/v1/acct/gw";
    upstream(server, `${gateway}/openai`, chatWire, () => errorResponse(chatWire, 503));
    const anthropic = upstream(
      server,
      `${gateway}/anthropic`,
      anthropicWire,
      answers(anthropicWire, "ok"),
    );
    await streamChat(chain({
      baseURL: `${gateway}/openai`,
      maxRetries: 0,
      fallbacks: [{
        baseURL: `${gateway}/anthropic`,
        protocol: "anthropic-messages",
        body: { model: "claude-sonnet-4-5", max_tokens: 512 },
      }],
    })).result;
    const headers = anthropic.headers[0]!;
    expect(headers.get("x-api-key")).toBeNull();
    expect(headers.get("authorization")).toBeNull();
    expect(headers.get("x-team")).toBeNull();
    expect(anthropic.count).toBe(1);
  });

  test("a fallback on the primary's baseURL (trailing slash aside) inherits key and headers", async () => {
    const up = upstream(
      server,
      PRIMARY,
      chatWire,
      (n, req) => n === 1 ? errorResponse(chatWire, 503) : sseResponse(req, answer(chatWire, "ok")),
    );
    await streamChat(chain({
      maxRetries: 0,
      fallbacks: [{ baseURL: `${PRIMARY}/`, body: { model: "gpt-4o-mini" } }],
    })).result;
    expect(up.headers[1]!.get("authorization")).toBe("Bearer sk-primary");
    expect(up.headers[1]!.get("x-team")).toBe("blue");
    expect(up.count).toBe(2);
  });

  test("a same-origin fallback (another model) inherits the key and headers", async () => {
    const up = upstream(server, PRIMARY, chatWire, (_n, req) => {
      return req.clone().json().then((body) =>
        body.model === "gpt-4o"
          ? errorResponse(chatWire, 404)
          : sseResponse(req, answer(chatWire, "mini here"))
      );
    });
    const run = await collect(
      streamChat(chain({ fallbacks: [{ body: { model: "gpt-4o-mini" } }] })),
    );
    expect(run.result?.content).toBe("mini here");
    expect(run.result?.target).toMatchObject({ index: 1, model: "gpt-4o-mini" });
    expect(up.headers[1]!.get("authorization")).toBe("Bearer sk-primary");
    expect(up.headers[1]!.get("x-team")).toBe("blue");
    expect(up.count).toBe(2);
  });

  test("a fallback entry drops a primary body field by setting it to undefined", async () => {
    upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const third = upstream(
      server,
      "https://responses.test/v1",
      responsesWire,
      answers(responsesWire, "ok"),
    );
    await streamChat(chain({
      maxRetries: 0,
      fallbacks: [{
        baseURL: "https://responses.test/v1",
        protocol: "openai-responses",
        body: { model: "gpt-5", messages: undefined, input: "Hi" },
      }],
    })).result;
    expect(third.bodies[0]).toEqual({ model: "gpt-5", input: "Hi", stream: true });
    expect(third.count).toBe(1);
  });
});
