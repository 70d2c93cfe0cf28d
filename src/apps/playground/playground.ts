// The playground page served at `GET /`, as strings: Workers cannot read files at runtime.

import { FETCH_SCRIPT } from "./playground_fetch.ts";
import { LAYOUT_SCRIPT } from "./playground_layout.ts";
import { PAGE_SCRIPT } from "./playground_script.ts";
import { TIMELINE_SCRIPT } from "./playground_timeline.ts";

/** The menu's faults: label, `x-demo-fault` spec, and what the page then shows (in its words). */
const FAULTS: ReadonlyArray<readonly [string, string, string]> = [
  ["No fault", "", "One request to the model, the first token, the answer, done."],
  [
    "Long answer (200 words): try Stop",
    "words=200",
    "A long answer. Press Stop: the page sends the stream's cancel request, the relay closes " +
    "its request to the model at once, and the timeline ends at the stop.",
  ],
  [
    "503 first (retried by the relay)",
    "attempt1=status:503",
    "Request 1 to the model gets a 503; the relay waits a short backoff and request 2 answers. " +
    "The answer arrives whole, once.",
  ],
  [
    "429 first, Retry-After 1 s",
    "attempt1=status:429;retry-after:1",
    "Request 1 gets a 429 asking to retry after 1 s: the timeline counts that second down, " +
    "then request 2 answers. The answer arrives whole. The status went out during the wait, so " +
    "x-stopstream-attempts (requests before the status was sent) says 1; the relay's comment " +
    "before the answer says 2.",
  ],
  [
    "503, then 429 with Retry-After 1 s",
    "attempt1=status:503,attempt2=status:429;retry-after:1",
    "A 503 and its backoff, then a 429 and its 1 s Retry-After, then request 3 answers. " +
    "The answer arrives whole.",
  ],
  [
    "Stall before the first token (retried)",
    "attempt1=stall-ms:4000;stall-after:0",
    "Request 1 answers 200, then sends nothing: after 1.5 s the relay calls it stalled, closes " +
    "it, and request 2 answers. The answer arrives whole.",
  ],
  [
    "Slow first token (2.5 s)",
    "first-byte-ms=2500",
    "The model takes 2.5 s to answer. Slow is not stalled: one long request, no retry, then " +
    "the answer.",
  ],
  [
    "Drop my connection mid-answer (resumed)",
    "caller-drop-after=8,words=60",
    "The relay cuts this page's own connection after 8 events. The answer runs on in the " +
    "relay; the page reconnects with Last-Event-ID and the answer completes, each word once. " +
    "The drop, the gap and the resume are marked.",
  ],
  [
    "The model drops its connection after 5 words",
    "drop-after=5",
    "The model's connection to the relay drops mid-answer. Trying again would repeat words, " +
    "so the answer ends red, incomplete, with its 5 words kept.",
  ],
  [
    "The model stalls mid-answer",
    "stall-after=6,stall-ms=5000",
    "The model stops after 6 words; the relay calls it stalled after 2 s and the answer ends " +
    "red, incomplete, with its 6 words kept.",
  ],
  [
    "Error event after 3 words",
    "error-event-after=3",
    "The model reports an error mid-answer; the answer ends red, incomplete, with its 3 words " +
    "kept.",
  ],
];

const STYLE = `
:root { color-scheme: light dark; --muted: #8a8f98; --accent: #2f6fec; --fg: CanvasText; }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 860px; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; margin-bottom: 0.2rem; } p.lead { margin-top: 0; color: var(--muted); }
textarea { width: 100%; box-sizing: border-box; font: inherit; padding: 0.5rem; min-height: 3.5rem; }
.row { display: flex; gap: 0.6rem; flex-wrap: wrap; align-items: center; margin: 0.6rem 0; }
button { font: inherit; padding: 0.35rem 1.1rem; border-radius: 6px; border: 1px solid var(--muted); cursor: pointer; }
button#send { background: var(--accent); color: white; border-color: var(--accent); }
button:disabled { opacity: 0.45; cursor: default; }
select, input { font: inherit; padding: 0.25rem; max-width: 100%; box-sizing: border-box; }
.row > label { max-width: 100%; }
#fault-help { margin: 0; font-size: 13px; color: var(--muted); }
details { font-size: 13px; color: var(--muted); } details dt { font-weight: 600; } details dd { margin: 0 0 0.3rem 1rem; }
#status, #log, #stream-row { overflow-wrap: anywhere; }
#status { font: 13px ui-monospace, monospace; padding: 0.4rem 0.6rem; border-radius: 6px; background: rgba(127,127,127,0.12); }
#status[data-state="error"] { background: rgba(220,50,50,0.15); } #status[data-state="done"] { background: rgba(40,160,80,0.15); }
#stream-row { font-size: 13px; color: var(--muted); margin-top: 0.3rem; }
#timeline { margin: 0.8rem 0 0.4rem; font: 11px/18px ui-monospace, monospace; }
#timeline:empty { display: none; }
.tl-row { position: relative; height: 22px; margin: 3px 0 3px 8rem; background: rgba(127,127,127,0.08); border-radius: 3px; }
.tl-row::before { content: attr(data-label); position: absolute; right: 100%; width: 7.6rem; margin-right: 0.4rem; text-align: right; color: var(--muted); line-height: 22px; }
.tl-item { position: absolute; top: 2px; bottom: 2px; min-width: 2px; border-radius: 3px; white-space: nowrap; box-sizing: border-box; color: white; background: #7d8aa0; }
.tl-item[data-label="inside"] .tl-label { padding: 0 4px; }
.tl-item[data-label="after"] .tl-label { position: absolute; left: calc(100% + 4px); color: var(--fg); }
.tl-item[data-label="before"] .tl-label { position: absolute; right: calc(100% + 4px); color: var(--fg); }
.tl-item[data-label="none"] .tl-label { display: none; }
.tl-probe { position: absolute; left: 0; top: 0; visibility: hidden; white-space: pre; }
.tl-item[data-state="ok"] { background: var(--accent); } .tl-item[data-state="error"], .tl-item[data-state="incomplete"], .tl-item[data-state="failed"] { background: #d64545; }
.tl-item[data-state="stopped"] { background: #8a8f98; }
.tl-item[data-kind="wait"] { background: repeating-linear-gradient(45deg, #e0a030 0 6px, #ebbb60 6px 12px); color: #222; }
.tl-item[data-kind="answer"][data-state="ok"], .tl-item[data-kind="answer"][data-state="running"] { background: #2a9d55; }
.tl-item[data-kind="gap"] { background: repeating-linear-gradient(45deg, #d64545 0 5px, #f0a0a0 5px 10px); color: #222; }
.tl-item[data-kind="end"], .tl-item[data-kind="cancel"] { top: -1px; bottom: -1px; background: var(--fg); }
.tl-axis { position: relative; height: 16px; margin-left: 8rem; color: var(--muted); font-size: 10px; }
.tl-axis span { position: absolute; border-left: 1px solid var(--muted); padding-left: 2px; white-space: nowrap; }
@media (max-width: 600px) {
  .tl-row, .tl-axis { margin-left: 0; } .tl-row { margin-top: 18px; }
  .tl-row::before { right: auto; left: 0; bottom: 100%; width: auto; margin: 0; text-align: left; line-height: 16px; }
}
#reasoning { color: var(--muted); font-style: italic; white-space: pre-wrap; }
#answer { white-space: pre-wrap; min-height: 3rem; border-left: 3px solid var(--accent); padding-left: 0.8rem; }
#tools { font: 13px ui-monospace, monospace; white-space: pre-wrap; }
#log { font: 12px ui-monospace, monospace; color: var(--muted); white-space: pre-wrap; }
section:has(> div:empty:last-child) { display: none; }
.label { font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin-top: 0.8rem; }
`;

const SCRIPT = `
import {
  isAPIStatusError, isInterruptedError, isPartialStreamError, isUpstreamStreamError, streamChat,
} from "./stopstream.js";
${LAYOUT_SCRIPT}
${TIMELINE_SCRIPT}
${FETCH_SCRIPT}
${PAGE_SCRIPT}`;

const attr = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

const BODY = `
<h1>stopstream relay playground</h1>
<p class="lead">An OpenAI-compatible relay on Cloudflare Workers, streamed with stopstream's own
browser client. Pick a fault and press <b>Send</b>: the timeline shows each request the relay
makes to the model, each wait between them, the first token, the answer and its end, with
their times, as the relay narrates them. <b>Stop</b> cancels the answer at once. Reload the
page mid-answer, or open its stream in another tab, and the answer carries on there.</p>
<textarea id="prompt">Tell me what stopstream is for.</textarea>
<div class="row">
  <button id="send">Send</button>
  <button id="stop" disabled>Stop</button>
  <label>Fault <select id="fault">${
  FAULTS.map(([label, spec, shows]) =>
    `<option value="${attr(spec)}" data-shows="${attr(shows)}">${attr(label)}</option>`
  ).join("")
}</select></label>
</div>
<p id="fault-help"></p>
<details><summary>What each fault shows</summary><dl>${
  FAULTS.map(([label, , shows]) => `<dt>${attr(label)}</dt><dd>${attr(shows)}</dd>`).join("")
}</dl></details>
<div class="row">
  <label>Model <select id="model"><option value="demo">demo</option>
    <option value="demo-reason">demo-reason (thinks first)</option></select></label>
  <label><input type="checkbox" id="with-tools"> offer a tool</label>
  <label>Protocol <select id="protocol"><option value="openai-chat">chat completions</option>
    <option value="anthropic-messages">Anthropic Messages</option>
    <option value="openai-responses">Responses API</option></select></label>
  <label>Relay key <input id="key" type="password" size="14" placeholder="(if RELAY_KEYS)"></label>
</div>
<div id="status" data-state="idle">idle</div>
<div id="stream-row" hidden>stream <code id="stream-id"></code> ·
  <a id="follow-link" target="_blank">follow it in another tab</a></div>
<div id="timeline"></div>
<section><div class="label">Reasoning</div><div id="reasoning"></div></section>
<div class="label">Answer</div><div id="answer"></div>
<section><div class="label">Tool calls</div><div id="tools"></div></section>
<section><div class="label">Events</div><div id="log"></div></section>
<div class="row"><label>Follow a stream by id <input id="follow-id" size="34"
  placeholder="32 hex digits"></label><button id="follow">Follow</button></div>
`;

export const PLAYGROUND_HTML: string = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stopstream relay playground</title>
<style>${STYLE}</style></head>
<body>${BODY}
<script type="module">${SCRIPT}</script>
</body></html>
`;

/** No framing: a page that keeps a relay key in `localStorage` must not be clickjacked. */
export async function playgroundPolicy(): Promise<string> {
  return `default-src 'none'; script-src 'self' ${await sha256Source(SCRIPT)}; ` +
    `style-src ${await sha256Source(STYLE)}; connect-src 'self'; frame-ancestors 'none'; ` +
    "base-uri 'none'; form-action 'none'";
}

async function sha256Source(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
}
