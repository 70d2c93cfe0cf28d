// A resumable call runs in its stream's Durable Object, out of the retry budget's reach: it is
// lent the most retries it could make and gives back what it did not need.

import { type CallBudget, giveBack, lend } from "./caller_budget.ts";
import type { Admitted } from "./call_guards.ts";
import type { UpstreamRoute } from "./cooldown.ts";
import { startStream, type StreamsConfig } from "./streams/routes.ts";
import type { StartPlan } from "./streams/wire.ts";

/** What the Worker side keeps of the call: its caller's budget, its route and its admission. */
export interface ResumableHeld {
  budget: CallBudget | undefined;
  /** The most retries the call could make (`maxRetries` per upstream). */
  maxRetries: number;
  route: UpstreamRoute;
  admitted: Admitted;
}

export async function resumableCall(
  streams: StreamsConfig,
  request: Request,
  plan: Pick<StartPlan, "call" | "upstreams" | "chat" | "keepAliveMs" | "log">,
  { budget, maxRetries, route, admitted }: ResumableHeld,
): Promise<Response> {
  budget?.deposit();
  const lent = budget && lend(budget, maxRetries);
  let started;
  try {
    started = await startStream(
      streams,
      request,
      lent === undefined ? plan : { ...plan, retries: lent },
    );
  } catch (error) {
    if (budget !== undefined) giveBack(budget, lent ?? 0);
    throw error;
  } finally {
    // Its slot is held until the start is answered (or fails).
    admitted.ended(Promise.resolve());
  }
  if (budget !== undefined) giveBack(budget, Math.min(started.returned, lent ?? 0));
  if (started.outcomes?.includes("success")) budget?.answered();
  if (started.outcomes !== undefined) route.report(started.outcomes);
  return started.response;
}
