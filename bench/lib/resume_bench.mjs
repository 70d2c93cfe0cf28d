// The resumable-stream benchmark, parent side: starts the relay Worker as `npm start` serves it
// (lib/relay_host.mjs: the Worker of wrangler.toml, its STREAMS Durable Object included), runs
// bench/workers/resume.mjs against it, summarizes, and renders its table and targets.

import { startRelayHost } from "./relay_host.mjs";
import { runContender } from "./spawn.mjs";
import { latency, median, round, spread } from "./stats.mjs";

function r3(obj) {
  return obj && Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, round(v)]));
}

/** Runs one child task; throws its error. */
async function task(name, extra, common) {
  const out = await runContender("resume", ["--task", name, ...extra, ...common]);
  if (!out.ok) throw new Error(out.error);
  return out;
}

/** Runs the resumable-stream benchmark; resolves with its summary (or a failure record). */
export async function resumeBench(plan, server, log) {
  let host;
  try {
    // Room for the 100k-delta stream (about 22 MB of chunks) under the resumable header.
    host = await startRelayHost(`${server.url}/m/v1`, { MAX_STREAM_BYTES: String(64 << 20) });
  } catch (error) {
    return { status: "failed", error: String(error.message ?? error) };
  }
  const common = ["--server", server.url, "--relay", host.relay.url];
  try {
    const out = { status: "measured", runtime: "npm start's: Miniflare → one workerd" };
    const ttfd = await task("resume-ttfd", ["--trials", plan.trials], common);
    out.ttfd = { plain: r3(latency(ttfd.plain)), resumable: r3(latency(ttfd.resumable)) };
    out.ttfd.overheadMs = round(median(ttfd.resumable) - median(ttfd.plain));
    log(`  resume · ttfd: +${out.ttfd.overheadMs} ms with the header`);
    const tp = await task("resume-throughput", ["--n", plan.n, "--runs", plan.runs], common);
    out.throughput = {
      n: tp.n,
      events: tp.events,
      plain: r3(spread(tp.wallMs.plain)),
      resumable: r3(spread(tp.wallMs.resumable)),
      ratio: round(median(tp.wallMs.resumable) / median(tp.wallMs.plain)),
    };
    log(`  resume · throughput: ${out.throughput.ratio}× without the header`);
    const gap = await task("resume-gap", ["--trials", plan.trials], common);
    out.gapMs = r3(latency(gap.gapMs));
    log(`  resume · gap: median ${out.gapMs.median} ms, p99 ${out.gapMs.p99} ms`);
    const cancel = await task("resume-cancel", ["--trials", plan.trials], common);
    out.cancelMs = r3(latency(cancel.closeMs));
    log(`  resume · cancel → upstream closed: median ${out.cancelMs.median} ms`);
    const writes = await task("resume-writes", ["--n", plan.n], common);
    out.writes = { paced: r3(writes.paced), fast: r3(writes.fast) };
    log(
      `  resume · writes per 1,000 events: paced ${out.writes.paced.per1000}, fast ` +
        `${out.writes.fast.per1000}`,
    );
    return out;
  } catch (error) {
    return { status: "failed", error: String(error.message ?? error) };
  } finally {
    await host.stop();
  }
}

/** The resumable-stream table (empty unless it was measured). */
export function resumeTables(results) {
  const r = results.resume;
  if (r?.status !== "measured") return [];
  const ms = (v) => (v === null || v === undefined ? "—" : String(v));
  return [{
    title: "Resumable streams — relay with `x-stopstream-resumable: true` vs without, " +
      "same loopback upstream",
    header: ["measure", "without", "with the header", "with − / ÷ without"],
    rows: [
      [
        "time to first delta, median ms",
        ms(r.ttfd.plain.median),
        ms(r.ttfd.resumable.median),
        `+${r.ttfd.overheadMs} ms`,
      ],
      ["time to first delta, p99 ms", ms(r.ttfd.plain.p99), ms(r.ttfd.resumable.p99), ""],
      [
        `${r.throughput.n.toLocaleString("en")} deltas, median ms`,
        ms(r.throughput.plain.median),
        ms(r.throughput.resumable.median),
        `${r.throughput.ratio}×`,
      ],
      [
        "resume gap (reconnect → first new event), median / p99 ms",
        "",
        `${r.gapMs.median} / ${r.gapMs.p99}`,
        "",
      ],
      [
        "cancel sent → upstream connection closed, median / p99 ms",
        "",
        `${r.cancelMs.median} / ${r.cancelMs.p99}`,
        "",
      ],
      [
        "storage writes per 1,000 events: paced (10 ms apart) / as fast as written",
        "",
        `${r.writes.paced.per1000} / ${r.writes.fast.per1000}`,
        "",
      ],
    ],
  }];
}

/**
 * Adds the resumable-stream targets to `list`, through targets.mjs's
 * `check(list, target, scope, measured, limit, met, unit)`.
 */
export function resumeTargets(list, resume, check) {
  if (resume?.status !== "measured") {
    const why = `not measured: ${resume?.error ?? resume?.status ?? "not run"}`;
    check(list, "resumable: first delta, 100k deltas, cancel", "resume", null, null, null, why);
    return;
  }
  const { ttfd, throughput, cancelMs } = resume;
  check(
    list,
    "resumable: time to first delta ≤ +5 ms over the same request without the header",
    "resume",
    ttfd.overheadMs,
    5,
    ttfd.overheadMs <= 5,
    "ms (medians)",
  );
  check(
    list,
    `resumable: ${throughput.n.toLocaleString("en")} deltas in ≤ 1.5× the time without it`,
    "resume",
    throughput.ratio,
    1.5,
    throughput.ratio <= 1.5,
    "×",
  );
  check(
    list,
    "resumable: cancel sent → upstream connection closed within 100 ms (p99, loopback)",
    "resume",
    cancelMs.p99,
    100,
    cancelMs.p99 <= 100,
    "ms",
  );
}
