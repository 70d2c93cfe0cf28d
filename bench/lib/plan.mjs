// What `npm run bench` measures, full and `--quick`. Every throughput group runs its contenders
// in interleaved rounds (round r starts at contender r), each run in a fresh process, so slow
// drift of the machine hits every contender alike and ratios come from the same run.

/** Every throughput contender, in table order. The floor is the reference for ratios. */
export const ALL = [
  "raw",
  "raw-decode",
  "floor",
  "stopstream-result",
  "stopstream-iterate",
  "openai-sdk",
  "ai-sdk",
  "fetch-event-source",
];
const OURS = ["floor", "stopstream-result", "stopstream-iterate"];

/** Contenders of the interrupt-latency and time-to-first-delta benchmarks. */
export const INTERRUPT = ["raw", "stopstream-result", "stopstream-iterate", "openai-sdk", "ai-sdk"];
export const TTFD = ["raw", "floor", "stopstream-iterate", "openai-sdk", "ai-sdk"];
export const PHASES = ["headers", "mid", "backoff"];

/** The benchmark plan. */
export function makePlan(quick) {
  const n = quick ? 20_000 : 100_000;
  const runs = quick ? 2 : 5;
  const throughput = [
    { workload: "openai", n, delivery: "chunked", contenders: ALL, runs },
    { workload: "openai", n, delivery: "event", contenders: ALL, runs: quick ? 1 : runs },
    { workload: "openai", n, delivery: "http", contenders: ALL, runs: quick ? 1 : runs },
    { workload: "tools", n, delivery: "chunked", contenders: OURS, runs: quick ? 1 : runs },
    { workload: "anthropic", n, delivery: "chunked", contenders: OURS, runs: quick ? 1 : runs },
  ];
  if (!quick) {
    throughput.push(
      { workload: "openai", n: 1_000_000, delivery: "chunked", contenders: ALL, runs: 3 },
      // Over HTTP the stream is not held in the consumer's memory, so peak RSS is the
      // consumer's own: this is the group the RSS target is judged on.
      {
        workload: "openai",
        n: 1_000_000,
        delivery: "http",
        contenders: ["raw", ...OURS],
        runs: 3,
      },
    );
  }
  return {
    quick,
    seed: 1,
    throughput,
    interrupt: { contenders: INTERRUPT, phases: PHASES, trials: quick ? 20 : 100 },
    ttfd: { contenders: TTFD, trials: quick ? 30 : 200, warmup: quick ? 5 : 20 },
    relay: {
      trials: quick ? 20 : 100,
      n: quick ? 20_000 : 100_000,
      runs: quick ? 1 : 3,
      // npm start under load (issue #13: 300 streams × 3 waves); the full run also puts the
      // control Worker under the same load.
      load: quick
        ? { streams: 60, waves: 1, control: false }
        : { streams: 300, waves: 3, control: true },
    },
    // The relay's inbound routes (issue #28), in-process in Node: a fresh process per route and
    // round, rounds interleaved.
    inbound: { n: quick ? 20_000 : 100_000, runs: quick ? 1 : 5, trials: quick ? 5 : 20 },
    resume: { trials: quick ? 20 : 100, n: quick ? 20_000 : 100_000, runs: quick ? 1 : 3 },
    // Cooldown and the retry budget (issue #13): 200 sequential requests with the primary down
    // (the figure, also in --quick), and a sustained outage (the relay's one upstream
    // down; then both upstreams of the other relay).
    outage: {
      requests: 200,
      reference: quick ? 20 : 50,
      outageCalls: quick ? 200 : 1000,
      concurrency: quick ? 20 : 50,
    },
  };
}

/** A group's display name, e.g. `openai 100k chunked`. */
export function groupName(g) {
  const n = g.n >= 1_000_000 ? `${g.n / 1_000_000}M` : `${g.n / 1000}k`;
  return `${g.workload} ${n} ${g.delivery}`;
}
