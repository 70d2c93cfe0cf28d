/**
 * Secrets are redacted before anything is cut, by the client and by the relay, in workerd: the
 * cases of test/support/redaction.ts, which test/unit/redaction.test.ts runs on Node.
 */

import { describeClientRedaction, describeRelayRedaction } from "../support/redaction.ts";

describeClientRedaction();
describeRelayRedaction();
