/**
 * The public data types in one import: the options of a call (`chat_options.ts`) and what it
 * produces, its events and result (`chat_result.ts`). Re-exports only. The public names are
 * listed in `index.ts`.
 *
 * @module
 */

export type * from "./chat_options.ts";
export type * from "./chat_result.ts";
