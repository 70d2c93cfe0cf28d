/**
 * Code that only some calls need, loaded on first use: a dynamic `import()` of a literal path,
 * so a bundler that splits code (esbuild `--splitting`, Vite, Rollup, webpack) puts the module
 * in a chunk of its own that an app downloads only when a call needs it, while Node, Deno, Bun
 * and Workers simply import it the first time. See scripts/bundle-size.mjs for what each chunk
 * weighs.
 *
 * @module
 */

import type { CallControl } from "./call_control.ts";
import { ConnectionError } from "../core/error_classes.ts";

/**
 * Wraps `load` (a dynamic `import()`): the first call starts it, every call waits for the same
 * promise — unless the call is stopped first (then its stop error, at once) — and once loaded
 * the value is returned as is (no promise, nothing allocated). A load that fails (a chunk that
 * did not download, a broken install) is a `ConnectionError` with the failure as its `cause`,
 * and the next call tries again; so is a wait longer than `limitMs` (the call's `headersMs`:
 * a module gets as long as a response's headers), while the load itself goes on for the next
 * call. Called without a control, it starts the load (or returns the value) and does not watch
 * for a stop.
 *
 * @example
 * ```ts
 * const decoder = lazy("the anthropic-messages decoder", () => import("../protocols/anthropic_decoder.ts"));
 * const { anthropicDecoding } = await decoder(control);
 * ```
 */
export function lazy<T>(
  what: string,
  load: () => Promise<T>,
): (control?: CallControl, limitMs?: number) => T | Promise<T> {
  let loaded: { value: T } | undefined;
  let loading: Promise<T> | undefined;
  // Without a control: the load itself, for code that starts it early and waits later (a wait
  // would take the control's `current`, which belongs to the attempt in flight).
  return (control, limitMs = Infinity) => {
    if (loaded !== undefined) return loaded.value;
    loading ??= load().then((value) => (loaded = { value }).value, (cause) => {
      loading = undefined;
      throw new ConnectionError(
        `stopstream: ${what} could not be loaded (a chunk of the app that did not download?); ` +
          "reload the app",
        { cause },
      );
    });
    return control === undefined ? loading : waitFor(loading, control, limitMs, what);
  };
}

/**
 * `promise`, unless the call is stopped first (then its stop error, in the same turn) or
 * `limitMs` pass first: a load that hangs (a chunk request that never completes) must not hang
 * the call, so it fails as a connection that did not answer would.
 */
function waitFor<T>(
  promise: Promise<T>,
  control: CallControl,
  limitMs: number,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    if (control.stopError !== undefined) return reject(control.stopError);
    // As the watchdog's: a limit past what a timer holds (it would fire at once) is none.
    const timer = limitMs <= 2_147_483_647
      ? setTimeout(() => {
        done();
        reject(
          new ConnectionError(
            `stopstream: ${what} did not load within ${limitMs} ms (a chunk of the app that ` +
              "does not download?); reload the app",
          ),
        );
      }, limitMs)
      : undefined;
    const wait = { cancel: reject };
    control.current = wait;
    const done = (): void => {
      clearTimeout(timer);
      if (control.current === wait) control.current = undefined;
    };
    promise.then((value) => {
      done();
      resolve(value);
    }, (error) => {
      done();
      reject(error);
    });
  });
}
