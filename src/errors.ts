/**
 * The typed errors in one import: the classes (`error_classes.ts`) and their guards
 * (`error_guards.ts`). Re-exports only; bundlers flatten it away. The public names are listed
 * in `index.ts`.
 *
 * @module
 */

export * from "./error_classes.ts";
export * from "./error_guards.ts";
