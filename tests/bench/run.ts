/** `npm run bench [-- suite …]`: runs benchmark suites on Deno (what ships) and prints figures. */
import process from "node:process";
import { type BenchFigure, printFigures } from "./harness.ts";
import { suites } from "./suites.ts";

const args = process.argv.slice(2);
const names = args.filter((a) => !a.startsWith("-"));
const selected = names.length ? names.filter((n) => n in suites) : Object.keys(suites);
if (names.length && selected.length === 0) {
  console.error(`unknown suite(s): ${names.join(", ")}; known: ${Object.keys(suites).join(", ")}`);
  process.exit(2);
}
const figures: BenchFigure[] = [];
for (const name of selected) {
  console.error(`running ${name}…`);
  const suite = await suites[name]();
  const result = await suite(args);
  console.log(printFigures(result));
  figures.push(...result);
}
console.log("\nAll figures:\n" + printFigures(figures));
