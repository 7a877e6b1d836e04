import { defineConfig } from "vitest/config";

// The PostgreSQL suites run when TEST_DATABASE_URL points at a server (.ci/run starts one).
const postgres = !!process.env.TEST_DATABASE_URL;
if (!postgres) console.warn("TEST_DATABASE_URL not set: the PostgreSQL suites (tests/postgres) are not run");

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "hono/jsx" },
  test: {
    include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
    exclude: ["node_modules/**", ...(postgres ? [] : ["tests/postgres/**"])],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
