/**
 * The relay's streaming answer with a caller who reads slowly or not at all
 * (src/relay/sse_response.ts), on Node: the cases of test/support/slow_caller.ts, which
 * test/workers/slow_caller.test.ts runs in workerd.
 */

import { describeSlowCaller } from "../support/slow_caller.ts";

describeSlowCaller("relay: a caller who stops reading", "node");
