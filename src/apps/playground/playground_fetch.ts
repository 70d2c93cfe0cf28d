// The fetch the playground's client gets, plain JavaScript in a string (no backticks, no `${`),
// and the page's connections it draws on the timeline. The client ignores SSE comments, so this
// fetch hands each body on unchanged while reading the relay's progress comments; following a
// stream by id is the same client, its request turned into `GET /v1/streams/{id}`.

export const FETCH_SCRIPT: string = String.raw`
const NOTE_KINDS = new Set(["open", "retry", "resume", "fallback", "upstream"]);
/** The lines that end a stream of each protocol the page speaks (an error event is an end too). */
const END_LINES = new Set(["data: [DONE]", "event: message_stop", "event: error",
  "event: response.completed", "event: response.failed", "event: response.incomplete"]);

/** "retry attempt=2 delay_ms=1000 reason=503 t=4" → { kind: "retry", attempt: "2", … } */
function parseNote(text) {
  const [kind, ...fields] = text.split(" ");
  const note = { kind };
  for (const field of fields) {
    const at = field.indexOf("=");
    if (at > 0) note[field.slice(0, at)] = field.slice(at + 1);
  }
  return note;
}

/** The page's own connection to the relay, on the timeline's "page" row. */
function drawConnection(timeline, kind, after) {
  const name = { request: "POST", resume: "GET after " + after, follow: "GET (follow)",
    cancel: "cancel" }[kind];
  const item = timeline.add("page", kind === "cancel" ? "cancel" : "connection", timeline.now(), {
    mark: kind === "cancel",
    text: (now, self) => name + (self.data.status ? " → " + self.data.status : "") +
      (self.data.how ? " · " + self.data.how : ""),
    short: (now, self) => [name.split(" (")[0] + (self.state === "error" ? " ✕" : ""),
      name.split(" ")[0]],
  });
  item.el.dataset.connection = kind;
  return item;
}

/** How a connection ended that did not end on its own: the page's Stop is not a failure. */
function closeConnection(timeline, connection, stop, how) {
  const stopped = stop !== undefined && stop.aborted;
  connection.data.how = stopped ? "stopped by you" : how;
  timeline.close(connection, timeline.now(), stopped ? "stopped" : "error");
}

/** body, passed on unchanged; its progress comments and how it ended go on the timeline. */
function observeBody(body, timeline, connection, stop) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  let ended = false; // the stream's own end (END_LINES)
  const end = (how) => {
    if (ended) {
      connection.data.how = "ended";
      timeline.close(connection, timeline.now(), "ok");
    } else closeConnection(timeline, connection, stop, how);
  };
  return new ReadableStream({
    async pull(controller) {
      let step;
      try {
        step = await reader.read();
      } catch (error) {
        end("cut");
        return controller.error(error);
      }
      if (step.done) {
        end("cut before its end");
        return controller.close();
      }
      pending += decoder.decode(step.value, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop();
      for (const line of lines) {
        if (END_LINES.has(line) || line.startsWith('data: {"error"')) ended = true;
        if (!line.startsWith(": ")) continue;
        const note = parseNote(line.slice(2));
        if (NOTE_KINDS.has(note.kind)) timeline.note(note);
      }
      controller.enqueue(step.value);
    },
    cancel(reason) {
      end("closed by the page");
      return reader.cancel(reason);
    },
  });
}

/** follow: the id of a stream to follow instead of sending the request; stop: the Stop button's. */
function observedFetch(timeline, follow, stop) {
  return async (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input.url, location.href);
    const method = (init.method || "GET").toUpperCase();
    let kind = method === "GET" ? "resume" : url.pathname.endsWith("/cancel") ? "cancel" : "request";
    if (follow !== undefined && kind === "request") {
      kind = "follow";
      input = new URL("v1/streams/" + follow, location.href).href;
      const headers = new Headers(init.headers);
      headers.delete("content-type");
      init = { method: "GET", headers, signal: init.signal, redirect: init.redirect };
    }
    // The cancel is sent because of Stop: its own failure is a failure.
    const stopSignal = kind === "cancel" ? undefined : stop;
    const after = new Headers(init.headers).get("last-event-id");
    const connection = drawConnection(timeline, kind, after);
    let response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      closeConnection(timeline, connection, stopSignal, "failed");
      throw error;
    }
    connection.data.status = String(response.status);
    if (kind === "cancel") {
      response.clone().json().then((answer) => {
        connection.data.how = answer.cancelled ? "upstream stopped" : "had already ended";
        connection.state = "ok";
        timeline.render();
        timeline.onLog(timeline.now() + " ms  cancel sent: " + connection.data.how);
      }, () => {});
      return response;
    }
    if (!response.ok || response.body === null) {
      timeline.close(connection, timeline.now(), "error");
      return response;
    }
    const body = observeBody(response.body, timeline, connection, stopSignal);
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}
`;
