// The relay's tables and target checks in BENCHMARKS.md (results.relay from relay_bench.mjs).

const show = (v) => (v === null || v === undefined ? "—" : String(v));

function sideBySideTable(r) {
  const t = r.ttfd;
  const tp = r.throughput;
  const cpu = tp.cpuPerThousandEvents;
  const ratio = (a, b) => (a && b ? `${Math.round((a / b) * 100) / 100}×` : "—");
  return {
    title: "Relay vs the pass-through control Worker — same local runtime (npm start's), same " +
      "loopback upstream, eventsource-parser consumer",
    header: ["measure", "direct", "control Worker", "relay", "relay vs control"],
    rows: [
      [
        "time to first delta, median ms",
        show(t.direct.median),
        show(t.control.median),
        show(t.relay.median),
        `${t.relayOverControlMs >= 0 ? "+" : ""}${t.relayOverControlMs} ms`,
      ],
      [
        "time to first delta, p99 ms",
        show(t.direct.p99),
        show(t.control.p99),
        show(t.relay.p99),
        "",
      ],
      [
        `${tp.n.toLocaleString("en")} deltas, median ms`,
        show(tp.direct.median),
        show(tp.control.median),
        show(tp.relay.median),
        `${tp.relayOverControl}×`,
      ],
      [
        "isolate CPU per 1,000 relayed events, ms (workerd main thread)",
        "—",
        show(cpu.control?.mainMs),
        show(cpu.relay?.mainMs),
        ratio(cpu.relay?.mainMs, cpu.control?.mainMs),
      ],
      [
        "workerd CPU per 1,000 relayed events, ms (all threads)",
        "—",
        show(cpu.control?.allMs),
        show(cpu.relay?.allMs),
        ratio(cpu.relay?.allMs, cpu.control?.allMs),
      ],
    ],
  };
}

function loadTable(title, load, withHeap) {
  return {
    title,
    header: [
      "wave",
      "open at once",
      "exact answers",
      "upstream cut within 2 s (median / max ms)",
      "fds: baseline → peak → after",
      "CLOSE-WAIT peak",
      "GET /healthz: probes, median / p99 / max ms",
      "Worker CPU s",
      "driver CPU s",
      ...(withHeap ? ["JS heap after full GC MiB"] : []),
    ],
    rows: load.waves.map((w) => {
      const d = w.disconnects;
      const h = w.healthz;
      return [
        String(w.wave),
        String(w.maxConcurrent),
        `${w.callers.complete} / ${w.streams - w.callers.disconnected}`,
        `${d.withinLimit} / ${d.n} (${show(d.cancelMs?.median)} / ${show(d.cancelMs?.max)})`,
        `${w.fds.baseline} → ${w.fds.peak} → ${w.fds.after}`,
        String(w.closeWait.peak),
        `${h.n}, ${show(h.median)} / ${show(h.p99)} / ${
          h.max >= 100 ? `**${h.max}**` : show(h.max)
        }`,
        String(Math.round(w.relayCpuMs / 100) / 10),
        // The callers, the upstream and the sampler: one process on the same two cores.
        w.driverCpuMs === undefined ? "—" : String(Math.round(w.driverCpuMs / 100) / 10),
        ...(withHeap ? [show(w.heapAfterGCMiB)] : []),
      ];
    }),
  };
}

/** The relay's tables (empty unless it was measured). */
export function relayTables(results) {
  const r = results.relay;
  if (r?.status !== "measured") return [];
  const tables = [sideBySideTable(r)];
  const l = r.load;
  if (l?.status === "measured") {
    const what = `${l.streams} concurrent streams per wave, ${Math.round(l.streams / 5)} callers ` +
      `disconnecting mid-answer; the demo upstream on a loopback socket, ${l.words} deltas, one ` +
      `per ${l.wordDelayMs} ms`;
    tables.push(loadTable(
      `npm start under load — ${what} (relay JS heap before: ${show(l.heapBeforeMiB)} MiB)`,
      l,
      true,
    ));
    if (r.controlLoad?.status === "measured") {
      tables.push(loadTable(
        "The same load through the control Worker (the yardstick)",
        r.controlLoad,
        false,
      ));
    }
    if (r.controlJsLoad?.status === "measured") {
      tables.push(loadTable(
        "The same load through the control Worker reading the body in JS, chunk by chunk " +
          "(what any relay that looks at the stream pays first)",
        r.controlJsLoad,
        false,
      ));
    }
  }
  return tables;
}

function check(list, target, measured, limit, met, unit = "") {
  list.push({ target, scope: "relay", measured, limit, unit, met });
}

/** The relay's target checks. */
export function relayTargets(list, relay) {
  if (relay?.status !== "measured") {
    const why = `not measured: ${relay?.error ?? relay?.status ?? "not run"}`;
    return check(list, "relay: load test, control Worker comparison", null, null, null, why);
  }
  const t = relay.ttfd;
  check(
    list,
    "relay time to first delta ≤ control Worker + 1 ms (median)",
    t.relayOverControlMs,
    1,
    t.relayOverControlMs <= 1,
    "ms over the control",
  );
  const tp = relay.throughput;
  check(
    list,
    `relay ${tp.n.toLocaleString("en")}-delta stream ≤ 1.5× the control Worker's time`,
    tp.relayOverControl,
    1.5,
    tp.relayOverControl <= 1.5,
    "×",
  );
  const l = relay.load;
  if (l?.status !== "measured") {
    return check(list, "npm start under load", null, null, null, `not measured: ${l?.error}`);
  }
  const scope = `npm start, ${l.streams} streams × ${l.waves.length}`;
  const sum = (f) => l.waves.reduce((n, w) => n + f(w), 0);
  const expected = sum((w) => w.streams - w.callers.disconnected);
  const exact = sum((w) => w.callers.complete);
  check(
    list,
    `${scope}: every other caller gets the exact answer`,
    exact,
    expected,
    exact === expected,
    `of ${expected}`,
  );
  const cut = sum((w) => w.disconnects.withinLimit);
  const dropped = sum((w) => w.disconnects.n);
  check(
    list,
    `${scope}: every disconnected caller's upstream cancelled within 2 s`,
    cut,
    dropped,
    cut === dropped,
    `of ${dropped}`,
  );
  const fdRatio = Math.max(...l.waves.map((w) => w.fds.after / w.fds.baseline));
  check(
    list,
    `${scope}: fds back within 10 % of baseline after each wave`,
    Math.round(fdRatio * 1000) / 1000,
    1.1,
    fdRatio <= 1.1,
    "× baseline (worst wave)",
  );
  const worst = Math.max(...l.waves.map((w) => (w.healthz.failures ? Infinity : w.healthz.max)));
  check(
    list,
    `${scope}: GET /healthz under 100 ms during every wave`,
    worst,
    100,
    worst < 100,
    "ms (slowest probe)",
  );
  const heap = l.waves.map((w) => w.heapAfterGCMiB);
  if (heap.length >= 2 && heap.every((v) => typeof v === "number")) {
    const limit = Math.round(heap[1] * 110) / 100;
    check(
      list,
      `${scope}: relay JS heap after a full GC flat (last wave ≤ 1.1× wave 2)`,
      heap.at(-1),
      limit,
      heap.at(-1) <= limit,
      "MiB",
    );
  }
}
