/**
 * Bad input is a 400 under Node too (JSON nested 5,000 levels deep used to be a 500 here), and
 * a seeded fuzz of bodies, encodings and header sets never gets a 5xx or a hang. The same cases
 * run in workerd (test/workers/validation.test.ts).
 */

import { describe, expect, test } from "vitest";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import {
  ACCEPTED_INPUTS,
  answerTo,
  expectRefusal,
  fuzzInputs,
  VALIDATION_CASES,
} from "../support/relay_inputs.ts";
import { seedFor } from "../support/seed.ts";

const SEED = seedFor("relay_validation");

const app = createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 2 } }, { wordDelayMs: 0 });

const send = (request: Request) => app.request(request);

describe("bad input is a 400", () => {
  test.each(VALIDATION_CASES)("$name", async (expected) => {
    await expectRefusal((await answerTo(send, expected.input)).response, expected);
  });

  test("inputs at the limits pass", async () => {
    for (const input of ACCEPTED_INPUTS) {
      const { response } = await answerTo(send, input);
      expect(
        response.status,
        `${String(input.body).slice(0, 80)}: ${await response.clone().text()}`,
      ).toBe(200);
    }
  });

  test(`seeded fuzz (seed ${SEED}): every answer is a 2xx or an OpenAI-shaped 4xx`, async () => {
    const statuses: Record<number, number> = {};
    for (const input of fuzzInputs(SEED, 300)) {
      const { problem, response } = await answerTo(send, input);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      expect(problem, `input ${JSON.stringify({ ...input, body: String(input.body) })}`)
        .toBeUndefined();
    }
    console.log("statuses", statuses);
  }, 60_000);
});
