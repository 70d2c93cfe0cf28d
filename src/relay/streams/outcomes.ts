// What a resumable call taught about each upstream, sent by the Durable Object in a header so
// the Worker can record it in the isolate's cooldowns like any other call's.

import { isAPIStatusError } from "../../core/error_guards.ts";
import type { RelayEvent } from "../chunks.ts";
import { type Outcome, outcomeOf } from "../cooldown.ts";

/** One word per target: `failure,pending` (`pending`: under way, not recorded). Not for callers. */
export const OUTCOMES_HEADER = "x-stopstream-outcomes";

const PENDING = "pending";
const WORDS: ReadonlySet<string> = new Set<Outcome>(["success", "failure", "neutral"]);

export class CallOutcomes {
  #outcomes: Outcome[] = [];
  #target = 0;
  #known = false;

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

  fail(error: unknown): void {
    if (this.#known) return;
    this.#outcomes[this.#target] = outcomeOf(error);
    this.#known = true;
  }

  toString(): string {
    const words: string[] = this.#outcomes.slice(0, this.#target);
    words.push(this.#known ? this.#outcomes[this.#target]! : PENDING);
    return words.join(",");
  }
}

/** Per target `undefined` while under way; `undefined` overall for a missing or bad value. */
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
