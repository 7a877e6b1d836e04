/**
 * Writes docs/events.md from the zod schemas of the event catalogue (`npm run docs:events`).
 * With --check it only compares and exits 1 when the committed file is stale.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { CATALOGUE_FILE, eventCatalogueMarkdown } from "../server/analysts/catalogue-doc.ts";
import { catalogue } from "../server/wiring.ts";

const root = resolve(import.meta.dirname ?? ".", "..");
const file = join(root, CATALOGUE_FILE);
const text = eventCatalogueMarkdown(catalogue);
if (process.argv.includes("--check")) {
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (current !== text) {
    console.error(`${CATALOGUE_FILE} is stale: run npm run docs:events`);
    process.exit(1);
  }
  console.log(`${CATALOGUE_FILE} is up to date`);
} else {
  writeFileSync(file, text);
  console.log(`wrote ${CATALOGUE_FILE}`);
}
