/**
 * Secrets are redacted before anything is cut, by the client and by the relay, on Node: the
 * cases of test/support/redaction.ts, which test/workers/redaction.test.ts runs in workerd.
 */

import { describeClientRedaction, describeRelayRedaction } from "../support/redaction.ts";

describeClientRedaction();
describeRelayRedaction();
