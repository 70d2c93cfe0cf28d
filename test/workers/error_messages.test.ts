/**
 * What a person reads when a call through the relay fails, in workerd: the cases of
 * test/support/relay_failures.ts, which test/unit/error_messages.test.ts runs on Node.
 */

import { describeRelayFailures } from "../support/relay_failures.ts";

describeRelayFailures();
