import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/deno.ts";

// Asynchronous: a synchronous install would block the test worker (Vitest times out talking to it).
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "fitness-clone-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Only what any shell has: no project variables (no ELECTRON_SKIP_BINARY_DOWNLOAD, no DATA_DIR …). */
const plainEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir };

describe("a fresh clone: npm install && npm start", () => {
  it(
    "installs the server without Electron, leaves the lockfile unchanged, starts with no settings and answers /health",
    async () => {
      // The committed HEAD, in a directory with no ../shared beside it.
      const clone = join(dir, "fitness-platform");
      await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], { env: plainEnv });
      expect(existsSync(join(clone, "../shared"))).toBe(false);

      await run("npm", ["install", "--no-audit", "--no-fund"], {
        cwd: clone,
        env: plainEnv,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(existsSync(join(clone, "node_modules/.bin/deno"))).toBe(true);
      // The desktop shell is its own package: the root install holds no Electron.
      expect(existsSync(join(clone, "node_modules/electron"))).toBe(false);
      expect(existsSync(join(clone, "node_modules/electron-builder"))).toBe(false);
      expect(existsSync(join(clone, "desktop/node_modules"))).toBe(false);
      const desktop = JSON.parse(readFileSync(join(clone, "desktop/package.json"), "utf8"));
      expect(Object.keys(desktop.devDependencies)).toEqual(expect.arrayContaining(["electron", "electron-builder"]));
      // npm install pins what the lockfile says and changes nothing.
      expect((await run("git", ["status", "--porcelain"], { cwd: clone })).stdout).toBe("");

      // npm start with nothing set but a free port (8080 may be taken on a shared machine).
      const child = spawn("npm", ["start"], {
        cwd: clone,
        env: { ...plainEnv, PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 120_000);
          child.stdout.on("data", () => {
            const m = /listening on (http:\/\/\S+)/.exec(out);
            if (m) {
              clearTimeout(timer);
              resolve(m[1]);
            }
          });
          child.on("exit", () => reject(new Error(`exited:\n${out}`)));
        });
        const health = await fetch(`${url}/health`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: "ok" });
        expect(out).toContain(`PGlite in ${join(clone, "data")}`);
      } finally {
        process.kill(-child.pid!, "SIGTERM");
        await exited;
      }
    },
    600_000,
  );
});
