// The wrangler.toml lines docs/relay.md tells people to add for resumable streams are the ones
// this repository's Worker runs with (its workerd, e2e, docs and deploy tests use wrangler.toml).
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

const root = new URL("../../", import.meta.url);

test("docs/relay.md's wrangler.toml lines for resumable streams are in wrangler.toml", () => {
  const docs = readFileSync(new URL("docs/relay.md", root), "utf8");
  const blocks = [...docs.matchAll(/^```toml\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  expect(blocks).toHaveLength(1);
  const toml = readFileSync(new URL("wrangler.toml", root), "utf8")
    .split("\n").filter((line) => !line.startsWith("#")).join("\n");
  expect(toml).toContain(blocks[0]!.trim());
});
