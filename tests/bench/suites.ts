import type { BenchSuite } from "./harness.ts";

/** Every benchmark suite, by name (`npm run bench -- <name>` runs one). Add one line per suite. */
export const suites: Record<string, () => Promise<BenchSuite>> = {};
