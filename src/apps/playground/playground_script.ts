// The playground's page script, plain JavaScript in a string (no backticks, no `${`): it goes
// after `TIMELINE_SCRIPT` and `FETCH_SCRIPT` in the same module script and uses what they define.

export const PAGE_SCRIPT: string = String.raw`
const $ = (id) => document.getElementById(id);
const STREAM_KEY = "stopstream-playground-stream";
const STREAM_ID = /^[0-9a-f]{32}$/;
const key = $("key");
key.value = localStorage.getItem("stopstream-relay-key") || "";
let current;

/** The finish reason in words: "done (stop)" read as if the Stop button had been pressed. */
const FINISHED = {
  stop: "the model finished its answer",
  length: "the answer reached its token limit",
  tool_calls: "the model called a tool",
  content_filter: "the provider's filter ended the answer",
};

const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

function status(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

function log(line) {
  $("log").textContent += line + "\n";
}

function remember(call, id) {
  call.id = id;
  $("stream-id").textContent = id;
  // A stream's events are in the protocol it was started in: whoever follows it must read that.
  $("follow-link").href = "?follow=" + id + "&protocol=" + call.protocol;
  $("stream-row").hidden = false;
  sessionStorage.setItem(STREAM_KEY,
    JSON.stringify({ id, prompt: call.prompt, model: call.model, protocol: call.protocol }));
}

function forget(call) {
  const saved = JSON.parse(sessionStorage.getItem(STREAM_KEY) || "null");
  if (saved !== null && saved.id === call.id) sessionStorage.removeItem(STREAM_KEY);
}

function busy(running) {
  $("send").disabled = $("follow").disabled = running;
  $("stop").disabled = !running;
}

/** The relay's own sentence when its error event ended the call (the client's "provider"). */
function relaySaid(error) {
  const cause = isPartialStreamError(error) ? error.cause : error;
  return isUpstreamStreamError(cause) ? cause.providerMessage : undefined;
}

/** The relay's own error code behind a failure (stream_cancelled: stopped by a cancel). */
function relayCode(error) {
  const cause = error && error.cause !== undefined ? error.cause : error;
  const data = cause && cause.data;
  return (data && (data.code || (data.error && data.error.code))) || undefined;
}

/** The request in the shape of the protocol the page speaks to the relay (the relay's routes). */
function bodyFor(call) {
  const tool = { name: "get_weather", description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
  const user = [{ role: "user", content: call.prompt }];
  if (call.protocol === "anthropic-messages") {
    return { model: call.model, max_tokens: 1024, messages: user, ...(call.withTools ?
      { tools: [{ name: tool.name, description: tool.description, input_schema: tool.parameters }] } : {}) };
  }
  if (call.protocol === "openai-responses") {
    return { model: call.model, input: call.prompt,
      ...(call.withTools ? { tools: [{ type: "function", ...tool }] } : {}) };
  }
  return { model: call.model, messages: user, stream_options: { include_usage: true },
    ...(call.withTools ? { tools: [{ type: "function", function: tool }] } : {}) };
}

async function run(call) {
  for (const id of ["reasoning", "answer", "tools", "log"]) $(id).textContent = "";
  $("stream-row").hidden = true;
  localStorage.setItem("stopstream-relay-key", key.value);
  call.controller = new AbortController();
  current = call;
  busy(true);
  const timeline = new Timeline($("timeline"), call.follow ? "follow" : "send", log);
  // The page's requests to the relay (a resume is one) are not the relay's to the model.
  let pageRequests = 1, resumes = 0, gaps = 0;
  const line = (state) =>
    state + " · relay → model: " + plural(timeline.upstreamRequests(), "request") +
    " · page → relay: " + plural(pageRequests, "request") +
    " · first token " + (timeline.firstToken === undefined ? "–" : timeline.firstToken + " ms") +
    " · " + plural(timeline.tokens, "token") +
    (resumes > 0 ? " · resumed " + resumes + "× (gap " + gaps + " ms)" : "");
  const headers = { "x-stopstream-resumable": "true", "x-stopstream-progress": "true" };
  if (call.fault) headers["x-demo-fault"] = call.fault;
  const body = bodyFor(call);
  if (call.follow) {
    status("waiting", "following stream " + call.follow + ": its events so far, then the live ones…");
    log("following stream " + call.follow + (call.reloaded ? " (the page was reloaded)" : ""));
  } else {
    status("waiting", "waiting for the first token…");
    if (call.fault) log("x-demo-fault: " + call.fault);
  }
  const stream = streamChat({
    baseURL: new URL("v1", location.href).href,
    protocol: call.protocol || "openai-chat",
    ...(key.value ? { apiKey: key.value } : {}),
    headers,
    body,
    signal: call.controller.signal,
    fetch: observedFetch(timeline, call.follow, call.controller.signal),
  });
  const tools = [];
  try {
    for await (const event of stream) {
      if (event.type === "open") {
        pageRequests = event.attempt;
        const attempts = event.headers["x-stopstream-attempts"];
        if (attempts !== undefined) timeline.told(event.status, +attempts);
        const id = event.headers["x-stopstream-stream-id"];
        if (id && call.id === undefined) remember(call, id);
        if (!id && pageRequests === 1) log("not resumable: this relay has no STREAMS binding");
      } else if (event.type === "retry") {
        log(timeline.now() + " ms  page: retry " + event.attempt + " in " + event.delayMs +
          " ms after " + event.error.message);
        status("waiting", "retrying (attempt " + event.attempt + ")…");
        continue;
      } else if (event.type === "resume") {
        resumes++;
        timeline.dropped(event.lastEventId, event.delayMs);
        status("resuming", "connection dropped after event " + event.lastEventId +
          "; resuming in " + event.delayMs + " ms…");
        continue;
      } else if (event.type === "text" || event.type === "reasoning") {
        const resuming = timeline.gap !== undefined && timeline.gap.end === undefined;
        timeline.token();
        if (resuming) gaps += timeline.gap.end - timeline.gap.start;
        $(event.type === "text" ? "answer" : "reasoning").textContent += event.text;
      } else if (event.type === "tool-call") {
        timeline.token();
        tools[event.index] = event.name + "(";
      } else if (event.type === "tool-call-delta") {
        tools[event.index] += event.argumentsDelta;
      } else if (event.type === "usage") {
        log("usage: " + event.usage.inputTokens + " in, " + event.usage.outputTokens + " out");
      } else if (event.type === "finish") {
        const reason = event.result.finishReason;
        status("done", line("done: " + (FINISHED[reason] || "finish reason " + reason)));
        timeline.finish("done", "done");
        continue;
      }
      $("tools").textContent = tools.map((t) => t + ")").join("\n");
      status("streaming", line("streaming"));
    }
  } catch (error) {
    if (isInterruptedError(error)) {
      status("stopped", line("stopped by you"));
      timeline.finish("stopped", "stopped");
      log("stopped: the request was aborted, the upstream stream cancelled");
    } else if (relayCode(error) === "stream_cancelled") {
      status("stopped", line("stopped by a cancel request (another tab?)"));
      timeline.finish("stopped", "stopped elsewhere");
    } else if (call.follow && isAPIStatusError(error) && error.status === 404) {
      status("error", "stream " + call.follow + " is gone: unknown, or expired");
      timeline.finish("failed", "not found");
    } else {
      const partial = isPartialStreamError(error);
      status("error", line(partial ? "incomplete answer" : "failed"));
      timeline.finish(partial ? "incomplete" : "failed", partial ? "incomplete answer" : "failed");
      const said = relaySaid(error);
      // One sentence: what happened and what to do.
      log(said === undefined ? error.message : "the relay ended the stream: " + said);
    }
  } finally {
    forget(call);
    if (current === call) busy(false);
  }
}

$("send").addEventListener("click", () => run({
  prompt: $("prompt").value,
  model: $("model").value,
  fault: $("fault").value,
  withTools: $("with-tools").checked,
  protocol: $("protocol").value,
}));
$("stop").addEventListener("click", () => current && current.controller.abort());
$("follow").addEventListener("click", () => {
  const id = $("follow-id").value.trim();
  if (!STREAM_ID.test(id)) return status("error", "a stream id is 32 lowercase hex digits");
  run({ follow: id, prompt: "(following)", model: "demo", protocol: $("protocol").value });
});
const help = () => {
  $("fault-help").textContent = $("fault").selectedOptions[0].dataset.shows;
};
$("fault").addEventListener("change", help);
help();

// Another tab's stream (?follow=<id>), or the answer this tab showed before a reload.
// Either is read in the protocol it was started in, which the picker then shows.
const params = new URLSearchParams(location.search);
const followed = params.get("follow");
const saved = JSON.parse(sessionStorage.getItem(STREAM_KEY) || "null");
const pick = (protocol) => {
  if ([...$("protocol").options].some((option) => option.value === protocol)) {
    $("protocol").value = protocol;
  }
  return $("protocol").value;
};
if (followed !== null && STREAM_ID.test(followed)) {
  run({ follow: followed, prompt: "(following)", model: "demo",
    protocol: pick(params.get("protocol")) });
} else if (saved !== null && STREAM_ID.test(saved.id)) {
  $("prompt").value = saved.prompt;
  run({ follow: saved.id, prompt: saved.prompt, model: saved.model || "demo", reloaded: true,
    protocol: pick(saved.protocol) });
}
`;
