// Test tiers, chosen with TEST_TIER by `npm run test:unit`, `test:api` and `test:slow` (see docs/contributing.md).
// `npm test` sets no tier and runs every file. Each file is in exactly one tier:
//   slow — the folders and files listed below (browsers, PostgreSQL, proofs, end to end, heavy suites);
//   unit — tests/unit/** except the slow files (the fast loop: under 30 s on a 2-core machine);
//   api  — every other test file (so a new folder lands here until it is listed).
// Tests are never moved to change tier: list a file here instead.

export const slowFolders = ["tests/browser", "tests/postgres", "tests/proof", "tests/e2e", "tests/ops"];

export const slowFiles = [
  // tests/unit files that took 3 s or more each (--reporter=json, 26 Nov 2026, shared 2-core machine). Next in line:
  // architecture.test.ts (~9 s of CPU building one TypeScript program), left in the unit tier as the check a layout
  // change needs first.
  "tests/unit/store.test.ts",
  "tests/unit/effort-board-counts.test.ts",
  "tests/unit/derive-pool.test.ts",
  "tests/unit/replay-batch.test.ts",
  "tests/unit/bulk-replay.test.ts",
  "tests/unit/records-volume-replay.test.ts",
  "tests/unit/read-model-upgrade.test.ts",
  "tests/unit/foreground.test.ts",
  "tests/unit/erasure-log.test.ts",
  // opens PGlite twice to read a backup of an earlier version (26 s on the shared machine, 28 Nov 2026)
  "tests/unit/tar.test.ts",
  // the real Python Strava tools (a virtual environment built once, then a Python process per call)
  "tests/dropin/stravalib-real.shared.test.ts",
  "tests/dropin/strava-offline-real.shared.test.ts",
  // a generated history of 420 activities imported from a Strava export (issue 43)
  "tests/api/athlete-years.test.ts",
  // 2,300 generated names searched on PGlite (issue 43; 14 s on the shared machine, 29 Nov 2026)
  "tests/unit/activity-name-search.test.ts",
  // opens PGlite and creates 20 segments before its measurement (6 s on the shared machine, 29 Nov 2026)
  "tests/unit/segment-profiles-batch.test.ts",
  // suites outside the slow folders that drive a browser
  "tests/mcp/clients.test.ts",
  "tests/archive/web.test.ts",
  "tests/desktop/ui.test.ts",
  "tests/desktop/sign-in.test.ts",
];

const tests = (folder: string) => [`${folder}/**/*.test.ts`, `${folder}/**/*.test.tsx`];
const slow = [...slowFolders.flatMap(tests), ...slowFiles];

/** The include and exclude globs of a tier (added to vitest.config.ts's own excludes); no tier: every test file. */
export function tierGlobs(tier: string | undefined): { include: string[]; exclude: string[] } {
  if (tier === undefined || tier === "") return { include: tests("tests"), exclude: [] };
  if (tier === "slow") return { include: slow, exclude: [] };
  if (tier === "unit") return { include: tests("tests/unit"), exclude: slow };
  if (tier === "api") return { include: tests("tests"), exclude: [...tests("tests/unit"), ...slow] };
  throw new Error(`TEST_TIER must be unit, api or slow, not ${tier}`);
}
