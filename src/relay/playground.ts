/**
 * The playground page the relay Worker serves at `GET /`: plain HTML and one small module
 * script that streams from the relay with stopstream itself (served at `/stopstream.js`).
 * Kept as a string module because Workers cannot read files at runtime.
 *
 * @module
 */

/** Faults offered by the page's menu: label → `x-demo-fault` spec. */
const FAULTS: ReadonlyArray<readonly [string, string]> = [
  ["No fault", ""],
  ["Long answer (200 words): try Stop", "words=200"],
  ["503 first (retried by the relay)", "attempt1=status:503"],
  ["429 first, Retry-After 1 s", "attempt1=status:429;retry-after:1"],
  ["Stall before the first token (retried)", "attempt1=stall-ms:4000;stall-after:0"],
  ["Slow first token (2.5 s)", "first-byte-ms=2500"],
  ["Drop the connection after 5 words", "drop-after=5"],
  ["Stall mid-answer (stall detected)", "stall-after=6,stall-ms=5000"],
  ["Error event after 3 words", "error-event-after=3"],
];

const STYLE = `
:root { color-scheme: light dark; --muted: #8a8f98; --accent: #2f6fec; }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 760px; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; margin-bottom: 0.2rem; } p.lead { margin-top: 0; color: var(--muted); }
textarea { width: 100%; box-sizing: border-box; font: inherit; padding: 0.5rem; min-height: 4.5rem; }
.row { display: flex; gap: 0.6rem; flex-wrap: wrap; align-items: center; margin: 0.6rem 0; }
button { font: inherit; padding: 0.35rem 1.1rem; border-radius: 6px; border: 1px solid var(--muted); cursor: pointer; }
button#send { background: var(--accent); color: white; border-color: var(--accent); }
button:disabled { opacity: 0.45; cursor: default; }
select, input { font: inherit; padding: 0.25rem; }
#status { font: 13px ui-monospace, monospace; padding: 0.4rem 0.6rem; border-radius: 6px; background: rgba(127,127,127,0.12); }
#status[data-state="error"] { background: rgba(220,50,50,0.15); } #status[data-state="done"] { background: rgba(40,160,80,0.15); }
#reasoning { color: var(--muted); font-style: italic; white-space: pre-wrap; }
#answer { white-space: pre-wrap; min-height: 3rem; border-left: 3px solid var(--accent); padding-left: 0.8rem; }
#tools { font: 13px ui-monospace, monospace; white-space: pre-wrap; }
#log { font: 12px ui-monospace, monospace; color: var(--muted); white-space: pre-wrap; }
section:has(> div:empty:last-child) { display: none; }
.label { font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin-top: 0.8rem; }
`;

const SCRIPT = `
import { streamChat, isInterruptedError, isPartialStreamError } from "./stopstream.js";

const $ = (id) => document.getElementById(id);
const key = $("key");
key.value = localStorage.getItem("stopstream-relay-key") ?? "";
let controller;

function status(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

function log(line) {
  $("log").textContent += line + "\\n";
}

$("send").addEventListener("click", async () => {
  for (const id of ["reasoning", "answer", "tools", "log"]) $(id).textContent = "";
  localStorage.setItem("stopstream-relay-key", key.value);
  controller = new AbortController();
  $("send").disabled = true;
  $("stop").disabled = false;
  const started = performance.now();
  let firstToken, tokens = 0, attempt = 1, relayAttempts = "?";
  const line = (state) =>
    \`\${state} · attempt \${attempt} (relay upstream requests: \${relayAttempts}) · \` +
    \`first token \${firstToken === undefined ? "–" : firstToken + " ms"} · tokens \${tokens}\`;
  const headers = {};
  if ($("fault").value) headers["x-demo-fault"] = $("fault").value;
  const body = {
    model: $("model").value,
    messages: [{ role: "user", content: $("prompt").value }],
    stream_options: { include_usage: true },
  };
  if ($("with-tools").checked) {
    body.tools = [{ type: "function", function: { name: "get_weather", description: "Current weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
  }
  status("waiting", "waiting for the first token…");
  if ($("fault").value) log("x-demo-fault: " + $("fault").value);
  const stream = streamChat({
    baseURL: new URL("v1", location.href).href,
    ...(key.value ? { apiKey: key.value } : {}),
    headers,
    body,
    signal: controller.signal,
  });
  const tools = [];
  try {
    for await (const event of stream) {
      if (event.type === "open") {
        attempt = event.attempt;
        relayAttempts = event.headers["x-stopstream-attempts"] ?? "?";
        if (relayAttempts !== "?" && relayAttempts !== "1") {
          log(\`the relay retried invisibly: \${relayAttempts} upstream requests before the first token\`);
        }
      } else if (event.type === "retry") {
        log(\`retry: attempt \${event.attempt} in \${event.delayMs} ms after \${event.error.message}\`);
        status("waiting", \`retrying (attempt \${event.attempt})…\`);
        continue;
      } else if (event.type === "text" || event.type === "reasoning") {
        firstToken ??= Math.round(performance.now() - started);
        tokens++;
        $(event.type === "text" ? "answer" : "reasoning").textContent += event.text;
      } else if (event.type === "tool-call") {
        firstToken ??= Math.round(performance.now() - started);
        tools[event.index] = event.name + "(";
      } else if (event.type === "tool-call-delta") {
        tools[event.index] += event.argumentsDelta;
        tokens++;
      } else if (event.type === "usage") {
        log(\`usage: \${event.usage.inputTokens} in, \${event.usage.outputTokens} out\`);
      } else if (event.type === "finish") {
        status("done", line(\`done (\${event.result.finishReason})\`));
        continue;
      }
      $("tools").textContent = tools.map((t) => t + ")").join("\\n");
      status("streaming", line("streaming"));
    }
  } catch (error) {
    if (isInterruptedError(error)) {
      status("stopped", line("stopped"));
      log("stopped: the request was aborted, the upstream stream cancelled");
    } else {
      const partial = isPartialStreamError(error);
      status("error", line(partial ? "incomplete answer" : "failed"));
      log(error.message); // one sentence: what happened and what to do
    }
  } finally {
    $("send").disabled = false;
    $("stop").disabled = true;
  }
});

$("stop").addEventListener("click", () => controller?.abort());
`;

const BODY = `
<h1>stopstream relay playground</h1>
<p class="lead">An OpenAI-compatible relay on Cloudflare Workers. Pick a fault, send, and watch the
stream survive it — or press <b>Stop</b> and the upstream request is cancelled at once.</p>
<textarea id="prompt">Tell me what stopstream is for.</textarea>
<div class="row">
  <button id="send">Send</button>
  <button id="stop" disabled>Stop</button>
  <label>Fault <select id="fault">${
  FAULTS.map(([label, spec]) => `<option value="${spec}">${label}</option>`).join("")
}</select></label>
</div>
<div class="row">
  <label>Model <select id="model"><option value="demo">demo</option>
    <option value="demo-reason">demo-reason (thinks first)</option></select></label>
  <label><input type="checkbox" id="with-tools"> offer a tool</label>
  <label>Relay key <input id="key" type="password" size="14" placeholder="(if RELAY_KEYS)"></label>
</div>
<div id="status" data-state="idle">idle</div>
<section><div class="label">Reasoning</div><div id="reasoning"></div></section>
<div class="label">Answer</div><div id="answer"></div>
<section><div class="label">Tool calls</div><div id="tools"></div></section>
<section><div class="label">Events</div><div id="log"></div></section>
`;

/**
 * The complete playground page.
 *
 * @example
 * ```ts
 * app.get("/", (c) => c.html(PLAYGROUND_HTML));
 * ```
 */
export const PLAYGROUND_HTML: string = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stopstream relay playground</title>
<style>${STYLE}</style></head>
<body>${BODY}
<script type="module">${SCRIPT}</script>
</body></html>
`;
