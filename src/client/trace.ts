// `result.trace`: one entry per request, opened as it is sent and closed once, never per event.

import type { ResultTarget, TraceEntry } from "../core/chat_result.ts";
import type { CallControl } from "./call_control.ts";

/** The request's entry, with the wait that came before it (`control.waitMs`, set by a backoff). */
export function openEntry(control: CallControl, target: ResultTarget): TraceEntry {
  const entry: TraceEntry = { target, start: Date.now(), end: 0, waitMs: control.waitMs };
  control.waitMs = 0;
  control.trace.push(entry);
  return entry;
}

/** Once: a stop's reason wins over whatever the teardown throws after it. */
export function closeEntry(entry: TraceEntry | undefined, error?: unknown): void {
  if (entry === undefined || entry.end !== 0) return;
  entry.end = Date.now();
  if (error !== undefined) entry.error = (error as Error | null)?.name ?? "Error";
}
