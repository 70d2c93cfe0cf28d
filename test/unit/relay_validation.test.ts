/**
 * Bad input is a 400 under Node too (JSON nested 5,000 levels deep used to be a 500 here), and
 * a seeded fuzz of bodies, encodings and header sets never gets a 5xx or a hang. The same cases
 * (test/support/relay_inputs.ts) run in workerd: test/workers/validation.test.ts.
 */

import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { describeValidation } from "../support/relay_inputs.ts";
import { seedFor } from "../support/seed.ts";

const app = createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 2 } }, { wordDelayMs: 0 });
const send = (request: Request) => app.request(request);

describeValidation({ named: send, fast: send, seed: seedFor("relay_validation") });
