import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogue } from "../../events/index.ts";
import { CATALOGUE_FILE, eventCatalogueMarkdown } from "../../server/analysts/catalogue-doc.ts";
import { ROOT } from "../helpers/deno.ts";

describe("docs/events.md, the event catalogue", () => {
  const fresh = eventCatalogueMarkdown(catalogue);

  it("lists every event type with its schema version and fields", () => {
    for (const d of catalogue.definitions) {
      expect(fresh).toContain(`## ${d.type}\n\n${d.description}\n\nSchema version: **${d.version}**`);
    }
    expect(fresh).toContain("| `targetId` | integer | yes |");
    expect(fresh).toContain('| `sex` | "M" \\| "F" \\| null | yes |');
  });

  it("is up to date with the zod schemas (regenerate with: npm run docs:events)", () => {
    const committed = readFileSync(join(ROOT, CATALOGUE_FILE), "utf8");
    expect(committed, "docs/events.md is stale: run npm run docs:events").toBe(fresh);
  });
});
