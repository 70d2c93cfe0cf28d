// Children that must not outlive the process that started them: the relays the benchmarks and
// tests start (`npm start`, wrangler dev, Miniflare hosts — each with a workerd under it) and the
// helper processes of `npm run bench`.
//
// A relay runs `detached`, in a process group of its own, so that stopping it reaches workerd
// too; the same makes it deaf to the terminal's Ctrl-C, which goes to the foreground group only.
// So every such child is spawned here and noted until it is stopped, and this process takes
// them along when it goes: on SIGINT, SIGTERM and SIGHUP (SIGTERM to each, SIGKILL after a
// grace, then the signal again, now with its default action), and on `exit` — a normal end, a
// `process.exit()`, an uncaught exception or unhandled rejection — where nothing can be awaited:
// SIGTERM at once, and a detached reaper (this file run as a script) sends SIGKILL after the
// grace to whatever still runs.
//
//   node scripts/process_groups.mjs <grace ms> <target>…   (the reaper; a target is a pid, or
//                                                           -pgid for a group)

import { spawn } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
/** How long a child has to end after SIGTERM before it gets SIGKILL. */
export const GRACE_MS = 3_000;

/** Running children → what `process.kill` takes to reach them (-pgid for a group of its own). */
const running = new Map();
let stopping = false;

/**
 * `child_process.spawn`, and the child is stopped when this process ends (see the top of this
 * file). With `detached: true` the child leads a process group of its own, and the whole group
 * is stopped (and stays noted while any of it runs); otherwise the child alone.
 *
 * @example
 * const child = spawnTracked("npm", ["start"], { detached: true, stdio: "ignore" });
 * // …
 * await stopTracked(child);
 */
export function spawnTracked(command, args, options = {}) {
  const child = spawn(command, args, options);
  if (child.pid === undefined) return child; // spawn failed; its "error" event follows
  const target = options.detached ? -child.pid : child.pid;
  running.set(child, target);
  listen();
  child.once("exit", () => {
    // A group may outlive its leader (workerd under an `npm start` that died): keep it noted.
    if (target > 0 || !isRunning(target)) forget(child);
  });
  return child;
}

/**
 * Stops a child of `spawnTracked` (its group, if detached): `signal` (SIGTERM by default), then
 * SIGKILL to whatever still runs after `graceMs`; resolves once nothing of it runs.
 *
 * @example
 * await stopTracked(child, { signal: "SIGINT" });
 */
export async function stopTracked(child, { signal = "SIGTERM", graceMs = GRACE_MS } = {}) {
  const target = running.get(child);
  if (target !== undefined) await terminate([target], signal, graceMs);
  forget(child);
}

function forget(child) {
  running.delete(child);
  if (running.size === 0 && !stopping) unlisten();
}

function listen() {
  if (process.listeners("exit").includes(onExit)) return;
  process.on("exit", onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function unlisten() {
  process.off("exit", onExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/**
 * Whether anything still runs at `target`: a pid, or -pgid for every process of a group.
 *
 * @example
 * if (!isRunning(-child.pid)) console.log("the whole group has ended");
 */
export function isRunning(target) {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function send(target, signal) {
  try {
    process.kill(target, signal);
  } catch {
    // Already gone.
  }
}

/** Polls until none of `targets` runs, or `ms` passed; resolves with those still running. */
async function gone(targets, ms) {
  const deadline = Date.now() + ms;
  let left = targets.filter(isRunning);
  while (left.length > 0 && Date.now() < deadline) {
    // No event says "the group is empty" (workerd is not our child): look again shortly.
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = left.filter(isRunning);
  }
  return left;
}

async function terminate(targets, signal, graceMs) {
  for (const target of targets) send(target, signal);
  const stubborn = await gone(targets, graceMs);
  for (const target of stubborn) send(target, "SIGKILL");
  await gone(stubborn, 1_000);
}

async function onSignal(signal) {
  const targets = [...running.values()];
  if (stopping) {
    // A second Ctrl-C: no more grace.
    for (const target of targets) send(target, "SIGKILL");
  } else {
    stopping = true;
    await terminate(targets, "SIGTERM", GRACE_MS);
  }
  running.clear();
  unlisten();
  // Die of the signal, as without these handlers, unless someone else handles it.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  else process.exit(128 + constants.signals[signal]);
}

function onExit() {
  const targets = [...running.values()].filter(isRunning);
  if (targets.length === 0) return;
  for (const target of targets) send(target, "SIGTERM");
  spawn(process.execPath, [SELF, String(GRACE_MS), ...targets.map(String)], {
    detached: true,
    stdio: "ignore",
  }).unref();
}

/** The reaper: SIGKILL to each target still running after the grace. */
async function reap([graceMs, ...targets]) {
  const left = await gone(targets.map(Number), Number(graceMs));
  for (const target of left) send(target, "SIGKILL");
}

if (process.argv[1] === SELF) await reap(process.argv.slice(2));
