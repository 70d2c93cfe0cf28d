/**
 * Bad input is a 400 in workerd too (JSON nested 5,000 levels deep used to be a 200 here), and
 * the same seeded fuzz as under Node (test/unit/relay_validation.test.ts) never gets a 5xx or
 * a hang. The named cases go through the Worker itself; the fuzz through `createRelay` with a
 * demo that does not pace its words (the Worker's 25 ms per word would make it slow).
 */

import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import {
  ACCEPTED_INPUTS,
  fuzzInputs,
  problemWith,
  type RelayInput,
  VALIDATION_CASES,
} from "../support/relay_inputs.ts";

const SEED = Math.floor(Math.random() * 2 ** 31);
console.log(`workers validation: fuzz seed ${SEED} (rerun: set SEED in this file)`);

const worker = exports.default;
const relay = createRelay({
  demo: { wordDelayMs: 0 },
  retry: { initialDelayMs: 1, maxDelayMs: 2 },
});
const fast = { fetch: (url: string, init: RequestInit) => relay.request(url, init) };

async function send(
  input: RelayInput,
  app: { fetch(url: string, init: RequestInit): Response | Promise<Response> } = worker,
): Promise<{ response: Response; problem?: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no complete answer within 5 s")), 5_000);
  });
  try {
    const response = await Promise.race([
      app.fetch("http://relay.test/v1/chat/completions", {
        method: "POST",
        headers: input.headers,
        body: input.body,
      }),
      hang,
    ]);
    const problem = await Promise.race([problemWith(response.clone()), hang]);
    return problem === undefined ? { response } : { response, problem };
  } finally {
    clearTimeout(timer);
  }
}

describe("bad input is a 400", () => {
  it.each(VALIDATION_CASES)("$name", async ({ input, status, says }) => {
    const { response } = await send(input);
    expect(response.status).toBe(status);
    const { error } = (await response.json()) as { error: { message: string; type: string } };
    expect(error.type).toBe("invalid_request_error");
    expect(error.message).toContain(says);
  });

  it("inputs at the limits pass", async () => {
    for (const input of ACCEPTED_INPUTS) {
      expect((await send(input, fast)).response.status).toBe(200);
    }
  });

  it(`seeded fuzz (seed ${SEED}): every answer is a 2xx or an OpenAI-shaped 4xx`, async () => {
    for (const input of fuzzInputs(SEED, 300)) {
      const { problem } = await send(input, fast);
      expect(problem, `input ${JSON.stringify({ ...input, body: String(input.body) })}`)
        .toBeUndefined();
    }
  }, 60_000);
});
