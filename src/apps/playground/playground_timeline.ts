// The playground's `class Timeline`, plain JavaScript in a string (no backticks, no `${`): the
// relay's progress comments, the client's events and the page's connections on one time axis.
// It goes after `LAYOUT_SCRIPT` in the page's module script and draws with what that defines.

export const TIMELINE_SCRIPT: string = String.raw`
const ROWS = [["requests", "relay → model"], ["waits", "relay waits"], ["answer", "answer"],
  ["page", "page ↔ relay"]];

const secs = (ms) => (ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)) + " s";

/** What ended a request to the model, from a progress comment's reason. */
function outcome(note) {
  if (note.reason === "timeout") {
    return note.phase === "headers" ? "no answer in " + secs(+note.timeout_ms)
      : "stalled " + secs(+note.timeout_ms);
  }
  if (/^\d+$/.test(note.reason)) return note.reason;
  return { connection: "connection lost", upstream_error: "error event", protocol: "bad stream",
    redirect: "redirect" }[note.reason] || "error";
}

class Timeline {
  constructor(root, mode, onLog) {
    this.root = root;
    this.mode = mode; // "send", or "follow" (a reload or another tab: the relay's times as told)
    this.t0 = performance.now();
    this.items = [];
    this.endedAt = undefined;
    this.attempts = new Map();
    this.maxAttempt = 0;
    this.toldAttempts = undefined; // x-stopstream-attempts: requests before the status was sent
    this.finalAttempts = undefined; // the ": upstream … attempts=" comment before the answer
    this.answer = undefined;
    this.gap = undefined;
    this.tokens = 0;
    this.firstToken = undefined;
    this.onLog = onLog;
    root.textContent = "";
    root.dataset.state = "running";
    this.rows = {};
    for (const [name, label] of ROWS) {
      this.rows[name] = element(root, "div", "tl-row", { row: name, label });
    }
    this.axis = element(root, "div", "tl-axis");
    this.widths = new TextWidths(root);
    this.ticker = setInterval(() => this.render(), 100);
    this.attempt(1, 0);
  }

  now() {
    return Math.round(performance.now() - this.t0);
  }

  log(at, text) {
    this.onLog(String(at).padStart(6) + " ms  " + text);
  }

  /** short(now, item): labels shorter than text(now, item), longest first, for a narrow bar. */
  add(row, kind, start, fields) {
    const el = element(this.rows[row], "div", "tl-item", { kind });
    const label = element(el, "span", "tl-label");
    const item = Object.assign({ el, label, row, kind, start, end: undefined, state: "running",
      data: {}, short: () => [] }, fields);
    this.items.push(item);
    this.render();
    return item;
  }

  close(item, at, state) {
    if (item.end === undefined || item.end > at) item.end = at;
    item.state = state;
    this.render();
  }

  /** Request n from the relay to the model. */
  attempt(n, start) {
    let item = this.attempts.get(n);
    if (item !== undefined) return item;
    item = this.add("requests", "attempt", start, {
      text: (now, self) => "#" + n + (self.data.outcome ? " " + self.data.outcome : " …") +
        (self.end !== undefined ? " · " + (self.end - self.start) + " ms" : ""),
      short: (now, self) => ["#" + n + (self.data.outcome ? " " + self.data.outcome : ""), "#" + n],
    });
    item.el.dataset.attempt = String(n);
    this.attempts.set(n, item);
    this.maxAttempt = Math.max(this.maxAttempt, n);
    return item;
  }

  /** The response's x-stopstream-attempts: the relay's requests to the model by its status. */
  told(status, attempts) {
    this.toldAttempts = attempts;
    this.log(this.now(), "page: the relay answered " + status + "; x-stopstream-attempts: " +
      attempts + " (requests to the model before it sent the status)");
  }

  /** The relay's requests to the model so far, as far as the page was told. */
  upstreamRequests() {
    return Math.max(this.maxAttempt, this.toldAttempts ?? 0, this.finalAttempts ?? 0);
  }

  /** A progress comment from the relay: open, retry, resume, fallback, or upstream. */
  note(note) {
    if (note.kind === "upstream") {
      // Sent only when the status went out before the answer's request: the headers were early.
      this.finalAttempts = +note.attempts;
      return this.log(this.now(), "relay: the answer came after " + note.attempts +
        " requests to the model" + (note.index === "0" ? "" : ", from upstream " + note.index) +
        " (x-stopstream-attempts, sent with the status, said " + (this.toldAttempts ?? "?") + ")");
    }
    const at = +note.t || 0; // the relay's time since the call began
    const n = +note.attempt;
    if (note.kind === "open") {
      const item = this.attempt(n, at);
      item.data.outcome = note.status;
      item.el.dataset.outcome = note.status;
      item.state = "ok";
      this.log(at, "relay: request " + n + " to the model answered " + note.status);
      return this.render();
    }
    const failed = this.attempt(n - 1, 0);
    failed.data.outcome = outcome(note);
    failed.el.dataset.outcome = note.reason;
    if (note.phase) failed.el.dataset.phase = note.phase;
    this.close(failed, at, "error");
    const delay = +note.delay_ms || 0;
    const retryAfter = note.retry_after_ms === undefined ? undefined : +note.retry_after_ms;
    const why = retryAfter !== undefined ? "Retry-After " + secs(retryAfter) : "backoff";
    this.log(at, "relay: request " + (n - 1) + " " + failed.data.outcome + "; " +
      (note.kind === "fallback" ? "falling back to the next upstream"
        : why + ", request " + n + " in " + delay + " ms"));
    if (delay > 0) {
      // Only the page's own call counts down: a follower's clock is not the relay's.
      const left = (now, self) =>
        this.mode === "send" && self.end > now && this.endedAt === undefined
          ? secs(self.end - now) + " left" : undefined;
      const wait = this.add("waits", "wait", at, {
        end: at + delay,
        short: (now, self) => [left(now, self) ?? (self.end - self.start) + " ms"],
        text: (now, self) =>
          why + " · " + (left(now, self) ?? "waited " + (self.end - self.start) + " ms"),
      });
      if (retryAfter !== undefined) wait.el.dataset.retryAfterMs = String(retryAfter);
    }
    this.attempt(n, at + delay);
  }

  /** A text, reasoning or tool-call delta reached the page. */
  token() {
    const at = this.now();
    if (this.answer === undefined) {
      this.firstToken = at;
      this.log(at, "first token");
      this.segment(at, "first token " + at + " ms");
    } else if (this.gap !== undefined && this.gap.end === undefined) {
      this.close(this.gap, at, "ok");
      this.log(at, "resumed: the answer goes on, no word twice, none lost");
      this.segment(at, "resumed");
    }
    this.tokens++;
  }

  /** A stretch of the answer: from the first token or a resume to a drop or the end. */
  segment(at, name) {
    const from = this.tokens;
    const count = (self) => (self.end === undefined ? this.tokens : self.data.tokens) - from;
    this.answer = this.add("answer", "answer", at, {
      text: (now, self) => name + " · " + count(self) + " tokens",
      short: (now, self) => [count(self) + " tokens", String(count(self))],
    });
  }

  /** A gap in the answer, until the first event of the resume. */
  dropped(lastEventId, delayMs) {
    const at = this.now();
    this.log(at, "connection dropped after event " + lastEventId + "; resuming in " + delayMs + " ms");
    if (this.answer !== undefined && this.answer.end === undefined) {
      this.answer.data.tokens = this.tokens;
      this.close(this.answer, at, "ok");
    }
    this.gap = this.add("answer", "gap", at, {
      text: (now, self) => "gap " + ((self.end ?? now) - self.start) + " ms",
      short: () => ["gap"],
    });
    this.gap.el.dataset.after = lastEventId;
  }

  /** state: done, stopped, incomplete or failed. */
  finish(state, text) {
    const at = this.now();
    this.endedAt = at;
    for (const item of this.items) {
      if (item.mark) continue; // a cancel's mark waits for the relay's answer
      if (item.end === undefined) item.end = at;
      if (item.end > at && item.kind === "wait") item.end = at;
      if (item.state === "running") item.state = state === "done" ? "ok" : state;
    }
    if (this.answer !== undefined) {
      this.answer.data.tokens = this.tokens;
      this.answer.state = state === "done" ? "ok" : state;
    }
    const end = this.add("answer", "end", at, {
      mark: true,
      text: () => text + " " + at + " ms",
      short: () => [text],
    });
    end.state = state;
    this.log(at, text);
    this.root.dataset.state = state;
    clearInterval(this.ticker);
    this.render();
  }

  render() {
    drawTimeline(this.items, this.rows, this.axis, this.widths, this.endedAt ?? this.now());
  }
}
`;
