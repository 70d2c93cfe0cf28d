// bench/ab.mjs --builds … --task relay: each build's relay Worker, started by its own tree's
// bench/lib/relay_host.mjs (so from its own src/, as that tree's `npm start` serves it), on the
// benchmark's loopback upstream. Per round, the floor consumer reads through every relay in
// turns: time to first delta (median of --trials) and one --n-delta stream (wall time, and the
// CPU time of that relay's workerd main thread: the isolate's work, untouched by our noise).
// `--resumable`: the same with `x-stopstream-resumable: true` (the stream kept in the relay's
// Durable Object, room for 64 MiB as in the resume benchmark).

import { spawnTracked } from "../../scripts/process_groups.mjs";
import { context } from "./context.mjs";
import { mainThreadCpuMs } from "./procfs.mjs";
import { median } from "./stats.mjs";
import { REQUEST_BODY } from "./streams.mjs";
import { throughputByTurns, ttfdByTurns } from "./turns.mjs";

/** Runs `args.runs` rounds; resolves with `summarize(rounds)` (bench/ab.mjs). */
export async function relayAB(builds, args, serverURL, summarize) {
  const hosts = {};
  const vars = args.resumable ? { MAX_STREAM_BYTES: String(64 << 20) } : {};
  const headers = args.resumable ? { "x-stopstream-resumable": "true" } : {};
  try {
    for (const b of builds) {
      const { startRelayHost } = await import(`${b.root}/bench/lib/relay_host.mjs`);
      hosts[b.name] = await startRelayHost(`${serverURL}/m/v1`, vars);
    }
    const names = builds.map((b) => b.name);
    const ctxOf = (name, model, extra = {}) =>
      context("openai", `${hosts[name].relay.url}/v1`, globalThis.fetch, {
        body: { ...REQUEST_BODY, model },
        headers,
        ...extra,
      });
    const rounds = { ttfd: {}, wall: {}, "workerd cpu": {} };
    for (const name of names) for (const m of Object.values(rounds)) m[name] = [];
    const around = (name) => {
      const before = mainThreadCpuMs(hosts[name].relay.pid);
      return () =>
        rounds["workerd cpu"][name].push(mainThreadCpuMs(hosts[name].relay.pid) - before);
    };
    process.stdout.write(
      `relay: ttfd ${args.trials ?? 100} trials, ${args.n} deltas, ${args.runs} runs\n`,
    );
    for (let r = 0; r < args.runs; r++) {
      const ttfd = await ttfdByTurns(names, ctxOf, Number(args.trials ?? 100));
      for (const name of names) rounds.ttfd[name].push(median(ttfd[name]));
      const order = names.map((_, k) => names[(r + k) % names.length]);
      const tp = await throughputByTurns(order, ctxOf, {
        n: args.n,
        runs: 1,
        server: serverURL,
        around,
      });
      for (const name of names) rounds.wall[name].push(tp.wallMs[name][0]);
    }
    return summarize({ [args.resumable ? "relay, resumable" : "relay"]: rounds });
  } finally {
    await Promise.all(Object.values(hosts).map((h) => h.stop()));
  }
}

function loadRun(root) {
  const args = [`${root}/bench/load.mjs`, "--streams", "300", "--waves", "3", "--json"];
  // Tracked: a SIGTERM to the A/B reaches it, and it stops its own relay.
  const child = spawnTracked(process.execPath, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (s) => stdout += s);
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    child.on("close", (code) => {
      try {
        resolve(JSON.parse(stdout.trim().split("\n").at(-1)));
      } catch {
        reject(new Error(`${root}/bench/load.mjs exited ${code}`));
      }
    });
  });
}

/**
 * `--task load`: each build's own bench/load.mjs (its `npm start` under 300 streams × 3 waves),
 * builds in turns, one child process each, `args.runs` rounds. Per run: the relay's CPU time over
 * the waves, and the medians of /healthz and of a departed caller's upstream cancel; a broken
 * promise of the load test is printed, not fatal (it is the same on every build, or a finding).
 */
export async function relayLoadAB(builds, args, summarize) {
  const rounds = { "relay CPU": {}, healthz: {}, "cancel on leave": {} };
  for (const m of Object.values(rounds)) for (const b of builds) m[b.name] = [];
  process.stdout.write(`load: 300 streams × 3 waves, ${args.runs} runs\n`);
  for (let r = 0; r < args.runs; r++) {
    for (let k = 0; k < builds.length; k++) {
      const b = builds[(r + k) % builds.length];
      const out = await loadRun(b.root);
      const broken = out.waves.flatMap((w) => w.broken.map((why) => `wave ${w.wave}: ${why}`));
      if (broken.length) process.stdout.write(`  ${b.name}, run ${r + 1}: ${broken.join("; ")}\n`);
      const sum = (f) => out.waves.reduce((s, w) => s + f(w), 0);
      rounds["relay CPU"][b.name].push(sum((w) => w.relayCpuMs));
      rounds.healthz[b.name].push(median(out.waves.map((w) => w.healthz.median)));
      rounds["cancel on leave"][b.name].push(
        median(out.waves.map((w) => w.disconnects.cancelMs.median)),
      );
    }
  }
  return summarize({ "npm start under load": rounds });
}
