/**
 * Bad input is a 400 in workerd too (JSON nested 5,000 levels deep used to be a 200 here), and
 * the same seeded fuzz as under Node (test/unit/relay_validation.test.ts) never gets a 5xx or
 * a hang. The named cases go through the Worker itself; the fuzz through `createDemoRelay` with a
 * demo that does not pace its words (the Worker's 25 ms per word would make it slow).
 */

import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import {
  ACCEPTED_INPUTS,
  answerTo,
  expectRefusal,
  fuzzInputs,
  VALIDATION_CASES,
} from "../support/relay_inputs.ts";
import { seedFor } from "../support/seed.ts";

const SEED = seedFor("workers validation");

const worker = (request: Request) => exports.default.fetch(request);
const relay = createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 2 } }, { wordDelayMs: 0 });
const fast = (request: Request) => relay.request(request);

describe("bad input is a 400", () => {
  it.each(VALIDATION_CASES)("$name", async (expected) => {
    await expectRefusal((await answerTo(worker, expected.input)).response, expected);
  });

  it("inputs at the limits pass", async () => {
    for (const input of ACCEPTED_INPUTS) {
      expect((await answerTo(fast, input)).response.status).toBe(200);
    }
  });

  it(`seeded fuzz (seed ${SEED}): every answer is a 2xx or an OpenAI-shaped 4xx`, async () => {
    for (const input of fuzzInputs(SEED, 300)) {
      const { problem } = await answerTo(fast, input);
      expect(problem, `input ${JSON.stringify({ ...input, body: String(input.body) })}`)
        .toBeUndefined();
    }
  }, 60_000);
});
