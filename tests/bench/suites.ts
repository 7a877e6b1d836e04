import type { BenchSuite } from "./harness.ts";

/** Every benchmark suite, by name (`npm run bench -- <name>` runs one). Add one line per suite. */
export const suites: Record<string, () => Promise<BenchSuite>> = {
  clubs: async () => (await import("./clubs.bench.ts")).clubsBench,
  segments: async () => (await import("./segments.bench.ts")).segmentsSuite,
  uploads: async () => (await import("./uploads.bench.ts")).uploadsBench,
  heatmaps: async () => (await import("./heatmaps.bench.ts")).heatmapsBench,
  companion: async () => (await import("./companion.bench.ts")).companionBench,
  core: async () => (await import("./core.bench.ts")).coreSuite,
  commands: async () => (await import("./commands.bench.ts")).commandsBench,
  analysts: async () => (await import("./analysts.bench.ts")).analystsSuite,
  load: async () => (await import("./load.bench.ts")).loadBench,
  web: async () => (await import("./web.bench.ts")).webBench,
  import: async () => (await import("./import.bench.ts")).importBench,
  replay: async () => (await import("./replay.bench.ts")).replayBench,
  scale: async () => (await import("./scale.bench.ts")).scaleBench,
  backup: async () => (await import("./backup.bench.ts")).backupBench,
  crop: async () => (await import("./crop.bench.ts")).cropBench,
  years: async () => (await import("./years.bench.ts")).yearsBench,
};
