/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** The relay's answer header: how many upstream requests it made before the status was sent. */
export const ATTEMPTS_HEADER = "x-stopstream-attempts";

/** The relay's answer header: which upstream answered (0: the primary). */
export const UPSTREAM_HEADER = "x-stopstream-upstream";

/** A resumable relay stream's response header; its value is the stream id. */
export const STREAM_ID_HEADER = "x-stopstream-stream-id";

/** The handler of a rejection nobody waits for (a cancel of a body being dropped). */
export const noop = (): void => {};
