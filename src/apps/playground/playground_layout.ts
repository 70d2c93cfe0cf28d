// Where the timeline draws its bars, labels and ticks, plain JavaScript in a string (no backticks,
// no `${`): it goes first in the page's module script.

export const LAYOUT_SCRIPT: string = String.raw`
const GAP_PX = 4; // between a bar and a label beside it (the CSS's calc(100% + 4px))
const PAD_PX = 8; // a label on its bar: its padding, both sides
const STEPS = [100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 30000, 60000];

/** A new tag at the end of parent, with its class and data attributes. */
function element(parent, tag, className = "", data = {}) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  Object.assign(el.dataset, data);
  parent.append(el);
  return el;
}

/** Texts' drawn widths in the timeline's font: its arrows are not always one column wide. */
class TextWidths {
  constructor(root) {
    this.probe = element(root, "span", "tl-probe");
    this.known = new Map();
  }

  of(text) {
    let px = this.known.get(text);
    if (px === undefined) {
      if (this.known.size > 500) this.known.clear(); // countdowns make new texts
      this.probe.textContent = text;
      px = this.probe.getBoundingClientRect().width;
      this.known.set(text, px);
    }
    return px;
  }
}

/** The scale leaves room after the last moment for the end's label. */
function drawTimeline(items, rows, axis, widths, now) {
  const width = rows.requests.getBoundingClientRect().width || 600;
  let last = Math.max(1000, now);
  for (const item of items) last = Math.max(last, item.end ?? 0);
  const end = items.find((item) => item.kind === "end");
  const room = Math.min(width * 0.4, Math.max(width * 0.12,
    end === undefined ? 0 : widths.of(end.text(now, end)) + GAP_PX + 2));
  const span = (last * width) / (width - room);
  const x = (ms) => (ms / span) * width;
  const shown = [];
  for (const item of items) {
    const { el } = item;
    el.hidden = item.start > now;
    if (el.hidden) continue;
    const text = item.text(now, item);
    el.title = text; // the whole label, whatever shows of it
    el.dataset.state = item.state;
    item.x0 = x(item.start);
    item.x1 = item.mark ? item.x0 + 2 : Math.max(x(item.end ?? now), item.x0 + 2);
    el.style.left = (item.x0 / width) * 100 + "%";
    el.style.width = item.mark ? "2px" : ((item.x1 - item.x0) / width) * 100 + "%";
    item.texts = [text, ...item.short(now, item)].filter((t) => t !== "");
    shown.push(item);
  }
  for (const row of Object.keys(rows)) {
    placeLabels(shown.filter((item) => item.row === row), width, widths);
  }
  drawAxis(axis, span, width, widths);
}

/** Each label on its bar, else after it, else before it, covering nothing; else hidden (title). */
function placeLabels(items, width, widths) {
  const taken = items.map((item) => [item.x0, item.x1, item]);
  const free = ([a, b], self) =>
    a >= 0 && b <= width && taken.every(([l, r, owner]) => owner === self || b <= l || a >= r);
  for (const item of items) {
    let where = "none";
    for (const text of item.texts) {
      const w = widths.of(text);
      if (!item.mark && w + PAD_PX <= item.x1 - item.x0) where = "inside";
      else {
        const after = [item.x1 + GAP_PX, item.x1 + GAP_PX + w];
        const before = [item.x0 - GAP_PX - w, item.x0 - GAP_PX];
        const side = free(after, item) ? after : free(before, item) ? before : undefined;
        if (side === undefined) continue;
        where = side === after ? "after" : "before";
        taken.push([side[0], side[1], item]);
      }
      showLabel(item, text, where);
      break;
    }
    if (where === "none") showLabel(item, item.texts[0] ?? "", where);
  }
}

function showLabel(item, text, where) {
  if (item.label.textContent !== text) item.label.textContent = text;
  item.el.dataset.label = where;
}

/** Ticks no closer than their labels' width, and none whose label would leave the row. */
function drawAxis(axis, span, width, widths) {
  const tick = (t) => widths.of(t + " ms") + 8;
  const widest = tick(Math.floor(span)); // as many digits as the last tick
  const step = STEPS.find((s) => span / s <= 8 && (s / span) * width >= widest) ??
    STEPS[STEPS.length - 1];
  const ticks = [];
  for (let t = 0; t <= span && (t / span) * width + tick(t) <= width; t += step) {
    ticks.push([t, t + " ms"]);
  }
  if (axis.dataset.ticks === ticks.join()) return;
  axis.dataset.ticks = ticks.join();
  axis.textContent = "";
  for (const [t, text] of ticks) {
    const el = element(axis, "span");
    el.style.left = (t / span) * 100 + "%";
    el.textContent = text;
  }
}
`;
