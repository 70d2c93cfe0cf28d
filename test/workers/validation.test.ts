/**
 * Bad input is a 400 in workerd too (JSON nested 5,000 levels deep used to be a 200 here), and
 * the same seeded fuzz as under Node never gets a 5xx or a hang: the cases of
 * test/support/relay_inputs.ts, which test/unit/relay_validation.test.ts runs under Node. The
 * named cases go through the Worker itself; the rest through `createDemoRelay` with a demo that
 * does not pace its words (the Worker's 25 ms per word would make it slow).
 */

import { exports } from "cloudflare:workers";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { describeValidation } from "../support/relay_inputs.ts";
import { seedFor } from "../support/seed.ts";

const relay = createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 2 } }, { wordDelayMs: 0 });

describeValidation({
  named: (request) => exports.default.fetch(request),
  fast: (request) => relay.request(request),
  seed: seedFor("workers validation"),
});
