/**
 * One caller cannot hurt another (issue #29, items 2 and 3), black box: the relay as `npm start`
 * runs it (workerd, the `RelayStream` Durable Object), real loopback upstreams that count what
 * they were sent. Callers are told apart by relay key.
 *
 * - Poisoning: one caller's requests make the primary answer 500; other callers stay on it.
 * - Budget: one caller loops on requests that always get 503; another's single 503 is retried.
 * - Outage: the one upstream answers 503 to everything; the retries stay a fraction of the
 *   traffic, for plain and resumable requests alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { type StartedRelay, startRelay } from "../support/npm_start.ts";
import { openAIText } from "../support/sse.ts";

const KEYS = ["k-attacker", ...Array.from({ length: 16 }, (_, i) => `k-caller-${i}`)];
const ATTACKER = KEYS[0]!;
const OTHERS = KEYS.slice(1);

function answer(text: string): Response {
  return new Response(openAIText([text]), { headers: { "content-type": "text/event-stream" } });
}

function failure(status: number, retryAfterMs?: number): Response {
  const headers: Record<string, string> = retryAfterMs === undefined
    ? {}
    : { "retry-after-ms": String(retryAfterMs) };
  return Response.json({ error: { message: "failed", type: "server_error" } }, {
    status,
    headers,
  });
}

/** The last user message's text, which says how the upstream answers. */
async function promptOf(request: Request): Promise<string> {
  const body = await request.json() as { messages?: Array<{ content?: unknown }> };
  return String(body.messages?.at(-1)?.content ?? "");
}

async function chat(
  relay: StartedRelay,
  key: string,
  prompt: string,
  resumable = false,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = resumable ? { "x-stopstream-resumable": "true" } : {};
  const response = await fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: prompt }],
      ...(resumable ? { stream: true } : {}),
    }),
  });
  // A resumable stream's events, read to the end (its failure is an event after a 200).
  if (resumable) return { status: response.status, text: await response.text() };
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, text: "" };
  }
  // After the relay's commit time a failure is the JSON body of a 200.
  const body = await response.json() as { choices?: Array<{ message: { content: string } }> };
  return { status: 200, text: body.choices?.[0]?.message.content ?? "" };
}

/** For the enclosing `describe`: an upstream answering with `handle`, a keyed relay before it. */
function keyedRelayOn(
  handle: (request: Request) => Promise<Response>,
): { upstream: NodeServer; relay: StartedRelay } {
  const serving = {} as { upstream: NodeServer; relay: StartedRelay };
  beforeAll(async () => {
    serving.upstream = await startNodeServer(handle);
    serving.relay = await startRelay(60_000, {
      UPSTREAM_BASE_URL: `${serving.upstream.url}/v1`,
      RELAY_KEYS: KEYS.join(","),
    });
  }, 90_000);
  afterAll(async () => {
    await serving.relay?.stop();
    await serving.upstream?.close();
  });
  return serving;
}

describe.skipIf(process.platform === "win32")("one caller cannot hurt another (npm start)", () => {
  describe("poisoning: one caller's 500-inducing requests", () => {
    let primary: NodeServer;
    let fallback: NodeServer;
    let relay: StartedRelay;

    beforeAll(async () => {
      // The primary fails only the poisoned body, quickly (no backoff to wait out).
      primary = await startNodeServer(async (request) =>
        (await promptOf(request)).includes("poison") ? failure(500, 0) : answer("primary")
      );
      fallback = await startNodeServer(() => Promise.resolve(answer("fallback")));
      relay = await startRelay(60_000, {
        UPSTREAM_BASE_URL: `${primary.url}/v1`,
        FALLBACKS: JSON.stringify([{ baseURL: `${fallback.url}/v1` }]),
        RELAY_KEYS: KEYS.join(","),
      });
    }, 90_000);

    afterAll(async () => {
      await relay?.stop();
      await Promise.all([primary?.close(), fallback?.close()]);
    });

    it("never move other callers to the fallback: 16 of 16 stay on the primary", async () => {
      for (let i = 0; i < 3; i++) {
        expect((await chat(relay, ATTACKER, "poison")).text).toBe("fallback");
      }
      const answered: string[] = [];
      for (const key of OTHERS) {
        // The attack goes on between the others' requests.
        expect((await chat(relay, ATTACKER, "poison")).text).toBe("fallback");
        answered.push((await chat(relay, key, "hello")).text);
      }
      expect(answered).toEqual(OTHERS.map(() => "primary"));
      // Each poisoned request was tried on the primary: it was never cooled down.
      const poisoned = 3 + OTHERS.length;
      expect(fallback.requests().length).toBe(poisoned);
      expect(primary.requests().length).toBeGreaterThanOrEqual(poisoned + OTHERS.length);
    }, 120_000);
  });

  describe("budget: one caller looping on requests that always get 503", () => {
    const seen = new Set<string>();
    let victimRequests = 0;
    const serving = keyedRelayOn(async (request) => {
      const prompt = await promptOf(request);
      if (prompt === "always") return failure(503, 0);
      victimRequests++;
      // `once <n>`: a transient 503, the first time only.
      if (seen.has(prompt)) return answer("ok");
      seen.add(prompt);
      return failure(503, 200);
    });

    it("another caller's single transient 503 is still retried (≥ 11 of 12)", async () => {
      let attacking = true;
      let attacks = 0;
      const loop = async (): Promise<void> => {
        while (attacking) {
          await chat(serving.relay, ATTACKER, "always");
          attacks++;
        }
      };
      const loops = [loop(), loop(), loop(), loop()];
      // The attack has drained what it can before the first victim request.
      while (attacks < 40) await new Promise((resolve) => setTimeout(resolve, 20));
      const retried: boolean[] = [];
      try {
        for (let i = 0; i < 12; i++) {
          const { status, text } = await chat(serving.relay, OTHERS[0]!, `once ${i}`);
          retried.push(status === 200 && text === "ok");
        }
      } finally {
        attacking = false;
        await Promise.all(loops);
      }
      console.log(
        `budget attack: ${retried.filter(Boolean).length} of 12 retried, ${attacks} attacks`,
      );
      expect(retried.filter(Boolean).length).toBeGreaterThanOrEqual(11);
      // Each victim request reached the upstream, and a retried one twice.
      expect(victimRequests).toBe(12 + retried.filter(Boolean).length);
    }, 120_000);
  });

  describe("outage: the one upstream answers 503 to everything", () => {
    const serving = keyedRelayOn(() => Promise.resolve(failure(503)));

    // Plain first, then resumable, each from four callers of its own (fresh shares).
    for (const [phase, resumable] of [[0, false], [1, true]] as const) {
      const kind = resumable ? "resumable" : "plain";
      it(`costs ≤ 1.3 upstream requests per caller request (${kind})`, async () => {
        const calls = 300;
        const concurrency = 30;
        const callers = OTHERS.slice(phase * 4, phase * 4 + 4);
        const before = serving.upstream.requests().length;
        let next = 0;
        let ended = 0;
        const worker = async (): Promise<void> => {
          for (let n = next++; n < calls; n = next++) {
            await chat(serving.relay, callers[n % callers.length]!, "hello", resumable);
            ended++;
          }
        };
        const started = Date.now();
        await Promise.all(Array.from({ length: concurrency }, worker));
        const seconds = (Date.now() - started) / 1000;
        expect(ended).toBe(calls);
        const perCall = (serving.upstream.requests().length - before) / calls;
        console.log(`outage (${kind}): ${perCall} upstream requests per call, ${seconds} s`);
        expect(perCall).toBeLessThanOrEqual(1.3);
      }, 180_000);
    }
  });
});
