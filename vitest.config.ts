import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { tierGlobs } from "./vitest.tiers.ts";

// Suites named *.shared.test.ts read what lies beside the project in ../shared and is never copied
// into it — the copyleft device files of the corpus (../shared/fixtures/devices), the Python Strava
// tools' sources (../shared/ecosystem/python) —: they run where that folder exists (every development
// machine and CI); a clone elsewhere runs everything else.
const sharedDevices = existsSync(new URL("../shared/fixtures/devices", import.meta.url));
if (!sharedDevices) console.warn("../shared/fixtures/devices not found: the *.shared.test.ts suites are not run");

// The PostgreSQL suites run when TEST_DATABASE_URL points at a server (.ci/run starts one).
const postgres = !!process.env.TEST_DATABASE_URL;
if (!postgres) console.warn("TEST_DATABASE_URL not set: the PostgreSQL suites (tests/postgres) are not run");

// TEST_TIER=unit|api|slow runs one tier (vitest.tiers.ts); unset, every test file runs.
const tier = tierGlobs(process.env.TEST_TIER);

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "hono/jsx" },
  test: {
    include: tier.include,
    exclude: [
      "node_modules/**",
      ...tier.exclude,
      ...(postgres ? [] : ["tests/postgres/**"]),
      ...(sharedDevices ? [] : ["tests/**/*.shared.test.ts"]),
    ],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
