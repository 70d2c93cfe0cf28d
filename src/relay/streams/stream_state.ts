/** What `GET /v1/streams/{id}` with `Accept: application/json` (and a cancel) says of a stream. */

import type { EventLog } from "./event_log.ts";
import type { StreamMeta } from "./stream_store.ts";

/** A running stream's counts are live (its log's); an ended one's are those stored at its end. */
export function describeStream(
  meta: StreamMeta,
  log: EventLog | undefined,
  writes: number,
): Record<string, unknown> {
  const running = meta.status === "running";
  const seconds = (ms: number | null): number | null => ms === null ? null : Math.floor(ms / 1000);
  return {
    id: meta.id,
    object: "stream",
    status: meta.status,
    events: running ? log?.lastVisible ?? meta.events : meta.events,
    bytes: running ? log?.bytes ?? meta.bytes : meta.bytes,
    storage_writes: running ? writes : meta.writes,
    readers: log?.readers ?? 0,
    created_at: seconds(meta.created),
    ended_at: seconds(meta.ended),
    expires_at: seconds(meta.expires),
  };
}
