// Command-line parsing for `stopstream chat`: flags → validated `ChatArgs`, or a `UsageError`.

import { MAX_TIMER_MS } from "../../core/constants.ts";
import { parseArgs } from "node:util";
import { closestName } from "../../core/option_keys.ts";
import type { ProtocolName } from "../../core/chat_options.ts";
import { isHttpURL } from "../../relay/upstreams.ts";

import { got, looksLikeKey, withoutKeys } from "./key_safety.ts";
import { PROTOCOL_DEFAULTS } from "./request.ts";

const PROTOCOL_NAMES = Object.keys(PROTOCOL_DEFAULTS);

export type ChatArgs = ReturnType<typeof parseChatArgs>;

/** The CLI prints its message on one line, pointing at `--help`, and exits 64 (EX_USAGE). */
export class UsageError extends Error {
  override name = "UsageError";
}

export const CHAT_USAGE = `Usage: stopstream chat [options] [prompt...]

Streams one answer. The prompt comes from the arguments, or from stdin when there are none.
Ctrl-C stops at once (exit 130); a second Ctrl-C exits without cleanup.

Options:
  --base-url URL       API base URL (default: the protocol's official API)
  --model NAME         model to ask (required unless --demo)
  --protocol NAME      ${PROTOCOL_NAMES.join(" | ")} (default: openai-chat)
  --api-key-env NAME   environment variable holding the API key
                       (default: OPENAI_API_KEY, or ANTHROPIC_API_KEY for anthropic-messages)
  --system TEXT        system prompt
  --max-retries N      retries after the first attempt (default: 2)
  --idle-timeout T     longest silence mid-stream before reconnecting: 30, 30s, 500ms, 2m
  --allow-insecure     send the API key over plain http to a host that is not this machine
  --json               print the final result as JSON on stdout instead of streaming text
  --no-reasoning       do not show the model's reasoning
  --demo               use the built-in demo model on a loopback port (no account, no network)
  --demo-fault SPEC    with --demo: faults to inject, e.g. attempt1=status:503 or drop-after=5
  -h, --help           show this help
  -v, --version        print the version

Exit status: 0 done, 1 failed, 2 failed after partial output, 64 bad usage,
78 no API key, 130 interrupted.`;

export const MAIN_USAGE = `Usage: stopstream <command> [options]

Commands:
  chat [prompt...]   stream one answer from an LLM API (stopstream chat --help)

Options:
  -h, --help         show this help
  -v, --version      print the version

Try it with no account: npx stopstream chat --demo "hello"`;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

export function parseChatArgs(argv: readonly string[]) {
  try {
    return parseValidArgs(argv);
  } catch (error) {
    // The messages below never quote a key-like value; this covers the ones they do not foresee.
    if (error instanceof UsageError) throw new UsageError(withoutKeys(error.message, argv));
    throw error;
  }
}

function parseValidArgs(argv: readonly string[]) {
  rejectKeyFlags(argv);
  const { values, positionals } = parseFlags(argv);
  const protocol = values.protocol ?? "openai-chat";
  if (!PROTOCOL_NAMES.includes(protocol)) {
    throw new UsageError(`--protocol must be one of ${PROTOCOL_NAMES.join(", ")}${got(protocol)}`);
  }
  const apiKeyEnv = values["api-key-env"];
  if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv)) {
    // Never echo the value: the usual mistake here is pasting the key itself.
    throw new UsageError(
      "--api-key-env takes the NAME of an environment variable (like OPENAI_API_KEY), " +
        "not the key itself",
    );
  }
  const baseURL = values["base-url"];
  if (baseURL !== undefined && !isHttpURL(baseURL)) {
    throw new UsageError(`--base-url must be an http(s) URL${got(baseURL)}`);
  }
  const demo = values.demo ?? false;
  if (demo && baseURL !== undefined) {
    throw new UsageError("--demo serves its own model; it cannot be combined with --base-url");
  }
  if (demo && protocol !== "openai-chat") {
    throw new UsageError("--demo speaks openai-chat only; drop --protocol");
  }
  if (!demo && values["demo-fault"] !== undefined) {
    throw new UsageError("--demo-fault only works with --demo");
  }
  const help = values.help ?? false;
  const version = values.version ?? false;
  if (!demo && !help && !version && values.model === undefined) {
    throw new UsageError("--model is required (for example --model gpt-4o-mini), or use --demo");
  }
  const maxRetries = values["max-retries"];
  if (maxRetries !== undefined && (!/^\d+$/.test(maxRetries) || Number(maxRetries) > 100)) {
    throw new UsageError(`--max-retries must be an integer from 0 to 100${got(maxRetries)}`);
  }
  return {
    prompt: positionals.length > 0 ? positionals.join(" ") : undefined,
    baseURL,
    model: values.model,
    protocol: protocol as ProtocolName,
    apiKeyEnv,
    system: values.system,
    maxRetries: maxRetries === undefined ? undefined : Number(maxRetries),
    idleTimeoutMs: values["idle-timeout"] === undefined
      ? undefined
      : parseDuration("--idle-timeout", values["idle-timeout"]),
    allowInsecure: values["allow-insecure"] ?? false,
    json: values.json ?? false,
    reasoning: !(values["no-reasoning"] ?? false),
    demo,
    demoFault: values["demo-fault"],
    help,
    version,
  };
}

const FLAGS = {
  "base-url": { type: "string" },
  "model": { type: "string" },
  "protocol": { type: "string" },
  "api-key-env": { type: "string" },
  "system": { type: "string" },
  "max-retries": { type: "string" },
  "idle-timeout": { type: "string" },
  "allow-insecure": { type: "boolean" },
  "json": { type: "boolean" },
  // Node 20's parseArgs has no `allowNegative`, so the negation is a flag of its own.
  "no-reasoning": { type: "boolean" },
  "demo": { type: "boolean" },
  "demo-fault": { type: "string" },
  "help": { type: "boolean", short: "h" },
  "version": { type: "boolean", short: "v" },
} as const;

/** Our own one-line messages first: Node's strict parser's advice about `--` does not fit a typo. */
function parseFlags(argv: readonly string[]) {
  const config = { args: [...argv], allowPositionals: true, options: FLAGS } as const;
  for (const token of parseArgs({ ...config, strict: false, tokens: true }).tokens) {
    if (token.kind !== "option") continue;
    const flag = token.rawName;
    const spec = (FLAGS as Record<string, { type: string }>)[token.name];
    if (spec === undefined) {
      if (looksLikeKey(flag)) throw new UsageError(`unknown option${got(flag, "it")}`);
      const near = closestName(token.name, Object.keys(FLAGS));
      throw new UsageError(`unknown option ${flag}${near ? `; did you mean --${near}?` : ""}`);
    }
    if (spec.type === "boolean" && token.value !== undefined) {
      throw new UsageError(`${flag} takes no value`);
    }
    if (spec.type === "string" && token.value === undefined) {
      throw new UsageError(`${flag} needs a value`);
    }
    if (spec.type === "string" && !token.inlineValue && token.value?.startsWith("-")) {
      if (looksLikeKey(token.value)) {
        throw new UsageError(`${flag} needs a value${got(token.value)}`);
      }
      throw new UsageError(
        `${flag} needs a value, not the option ${token.value} (write ${flag}=${token.value} ` +
          "for a value that starts with -)",
      );
    }
  }
  try {
    return parseArgs({ ...config, strict: true });
  } catch (error) {
    throw new UsageError(String((error as Error).message).split("\n")[0]!);
  }
}

/** Keys in argv end up in shell history and `ps`: refuse them before parsing can echo them. */
function rejectKeyFlags(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === "--") return;
    if (/^--(api-?key|key|token)(=|$)/i.test(arg)) {
      throw new UsageError(
        "API keys are not accepted as flags (they would leak into shell history and ps); " +
          "put the key in an environment variable and name it with --api-key-env NAME",
      );
    }
  }
}

/** A bare number is seconds; `ms`, `s` and `m` suffixes are accepted. */
export function parseDuration(flag: string, text: string): number {
  const match = DURATION.exec(text.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] ?? "s"]!;
  if (!(ms >= 1 && ms <= MAX_TIMER_MS)) {
    throw new UsageError(`${flag} must be a duration like 30, 30s, 500ms or 2m${got(text)}`);
  }
  return Math.round(ms);
}
