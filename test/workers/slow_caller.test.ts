/**
 * The relay's answer to a caller who reads slowly or not at all, in workerd (the stream and
 * queue of the runtime the relay is deployed on): the cases of test/support/slow_caller.ts,
 * which test/unit/relay_slow_caller.test.ts runs on Node.
 */

import { describeSlowCaller } from "../support/slow_caller.ts";

describeSlowCaller("relay in workerd: a caller who stops reading", "workerd");
