/**
 * What a resumable stream's call taught about each upstream it tried, as of the response to its
 * start: the Durable Object reads it off the call's events and sends it to the Worker in a
 * header, and the Worker records it in the isolate's cooldowns (`cooldown.ts`) and removes the
 * header. So resumable calls probe an upstream whose cooldown is over, and teach the isolate
 * what they found, like any other call.
 *
 * The response starts when an upstream answers 200, or after 1 s at most: an upstream the call
 * still waits for then (slow to answer, or between retries) is reported `pending` and left
 * unrecorded.
 *
 * @module
 */

import { isAPIStatusError } from "../../error_guards.ts";
import type { RelayEvent } from "../chunks.ts";
import { type Outcome, outcomeOf } from "../cooldown.ts";

/**
 * The header of a start response that carries the outcomes, one word per target of the call in
 * its order (`failure,success`; `pending` for the one still under way). Between the Worker and
 * the Durable Object only: callers never see it.
 *
 * @example
 * ```ts
 * response.headers.get(OUTCOMES_HEADER); // "failure,success"
 * ```
 */
export const OUTCOMES_HEADER = "x-stopstream-outcomes";

const PENDING = "pending";
const WORDS: ReadonlySet<string> = new Set<Outcome>(["success", "failure", "neutral"]);

/**
 * The outcomes of one call, noted from its events.
 *
 * @example
 * ```ts
 * const outcomes = new CallOutcomes();
 * for await (const event of chat) outcomes.note(event);
 * response.headers.set(OUTCOMES_HEADER, outcomes.toString());
 * ```
 */
export class CallOutcomes {
  #outcomes: Outcome[] = [];
  /** The target under way, and whether its outcome is known. */
  #target = 0;
  #known = false;

  /** Notes what an event says: a target left for the next (failed), one that answered 200. */
  note(event: RelayEvent): void {
    if (event.type === "fallback") {
      // A 404 is a model that upstream does not serve: no sign that it is down.
      const notFound = isAPIStatusError(event.error) && event.error.status === 404;
      this.#outcomes[this.#target] = notFound ? "neutral" : "failure";
      this.#target = event.index;
      this.#known = false;
    } else if (event.type === "open" && !this.#known) {
      this.#outcomes[this.#target] = "success";
      this.#known = true;
    }
  }

  /** Notes the error the call ended with, for the target it came from. */
  fail(error: unknown): void {
    if (this.#known) return;
    this.#outcomes[this.#target] = outcomeOf(error);
    this.#known = true;
  }

  /** The header's value: one word per target up to the one under way. */
  toString(): string {
    const words: string[] = this.#outcomes.slice(0, this.#target);
    words.push(this.#known ? this.#outcomes[this.#target]! : PENDING);
    return words.join(",");
  }
}

/**
 * The outcomes of an {@linkcode OUTCOMES_HEADER} value, per target (`undefined`: still under
 * way), or `undefined` when there is none or it is not one (nothing is recorded then).
 *
 * @example
 * ```ts
 * parseOutcomes("failure,pending"); // ["failure", undefined]
 * ```
 */
export function parseOutcomes(value: string | null): Array<Outcome | undefined> | undefined {
  if (value === null || value === "") return undefined;
  const outcomes: Array<Outcome | undefined> = [];
  for (const word of value.split(",")) {
    if (word === PENDING) outcomes.push(undefined);
    else if (WORDS.has(word)) outcomes.push(word as Outcome);
    else return undefined;
  }
  return outcomes;
}
