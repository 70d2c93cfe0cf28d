// What a process holds, read from Linux's /proc: its descendants, open file descriptors, TCP
// sockets by state, listening ports, CPU time. Used to judge the relay's processes under load.

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may contain spaces: [0] state, [1] ppid, …
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** `pid` and all its descendants, `{ pid, name, start }`, parents first. */
export function processTree(pid) {
  const children = new Map();
  const info = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = statFields(entry);
      const name = readFileSync(`/proc/${entry}/comm`, "utf8").trim();
      info.set(Number(entry), { pid: Number(entry), name, start: Number(f[19]) });
      const ppid = Number(f[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  const out = [];
  const visit = (p) => {
    if (info.has(p)) out.push(info.get(p));
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return out;
}

/** Number of open file descriptors of `pid` (0 when it is gone). */
export function fdCount(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function socketInodes(pid) {
  const inodes = new Set();
  let fds = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m) inodes.add(m[1]);
    } catch {
      // Closed while we looked.
    }
  }
  return inodes;
}

const TCP_STATES = {
  "01": "ESTABLISHED",
  "02": "SYN_SENT",
  "03": "SYN_RECV",
  "04": "FIN_WAIT1",
  "05": "FIN_WAIT2",
  "06": "TIME_WAIT",
  "07": "CLOSE",
  "08": "CLOSE_WAIT",
  "09": "LAST_ACK",
  "0A": "LISTEN",
  "0B": "CLOSING",
};

/**
 * The machine's TCP table (this network namespace's, IPv4 and IPv6): `[{ state, localPort,
 * remotePort, inode }]`. One read serves every process looked at in the same instant: the table
 * is the namespace's, whichever pid's /proc it is read through.
 */
export function tcpTable(pid = "self") {
  const out = [];
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      // f[1] local address:port (hex), f[2] remote, f[3] state, f[9] inode.
      const f = line.trim().split(/\s+/);
      out.push({
        state: TCP_STATES[f[3]] ?? f[3],
        localPort: parseInt(f[1].split(":")[1], 16),
        remotePort: parseInt(f[2].split(":")[1], 16),
        inode: f[9],
      });
    }
  }
  return out;
}

/** The TCP sockets `pid` holds: `[{ state, localPort, remotePort }]`, from `table` if given. */
export function tcpSockets(pid, table = tcpTable(pid)) {
  const inodes = socketInodes(pid);
  return table.filter((s) => inodes.has(s.inode));
}

/** TCP ports `pid` listens on. */
export function listeningPorts(pid) {
  return tcpSockets(pid).filter((s) => s.state === "LISTEN").map((s) => s.localPort);
}

/** CPU time (user + system) of `pid`'s main thread in ms, or null when it is gone. */
export function mainThreadCpuMs(pid) {
  try {
    const [onCpuNs] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ");
    return Number(onCpuNs) / 1e6;
  } catch {
    return null;
  }
}

/**
 * CPU time of all of `pid`'s threads in ms, or null when it is gone: the threads alive now
 * (schedstat, ns resolution) plus what ended threads left in the process's clock-tick totals.
 */
export function processCpuMs(pid) {
  try {
    let ms = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ms += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) /
          1e6;
      } catch {
        // The thread ended while we looked.
      }
    }
    const f = statFields(pid);
    // utime + stime in clock ticks (100 per second) count every thread, ended ones too.
    return Math.max(ms, (Number(f[11]) + Number(f[12])) * 10);
  } catch {
    return null;
  }
}

/** Resident set size of `pid` in MiB, or null. */
export function rssMiB(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
    return line ? Math.round(Number(line[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}
