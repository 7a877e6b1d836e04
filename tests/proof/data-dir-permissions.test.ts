import { spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DENO, type DenoServer, ROOT, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";

/** Every entry under dir with its permission bits. */
function tree(dir: string, out: { path: string; mode: number }[] = []): { path: string; mode: number }[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) continue;
    out.push({ path, mode: st.mode & 0o777 });
    if (st.isDirectory()) tree(path, out);
  }
  return out;
}

/** Runs the entry point as `npm start` does and waits for it to exit. */
function startExpectingExit(dataDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(DENO, ["run", "-A", "server/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", DATA_DIR: dataDir, SEED_DEMO: "0", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

let server: DenoServer | undefined;
afterAll(async () => {
  await server?.stop();
});

describe("DATA_DIR: nobody but the server's user can read or rewrite the log (Deno, PGlite on disk)", () => {
  it(
    "creates DATA_DIR 0700 and leaves no file readable or writable by group or others, also after writes",
    async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), "fitness-perm-")), "data");
      server = await startDenoServer({ dataDir });
      const token = /Access token[^\n]*:\n\s+(\S+)/.exec(server.output())?.[1];
      expect(token).toBeTruthy();
      const created = await api(server.url)("POST", "/v3/activities", {
        token,
        form: { name: "Private files", type: "Run", start_date_local: "2024-05-01T08:00:00Z", elapsed_time: 1800 },
      });
      expect(created.status).toBe(201);
      await server.stop();
      server = undefined;

      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      const entries = tree(dataDir);
      const open = entries.filter((e) => e.mode & 0o077);
      expect(entries.length).toBeGreaterThan(100);
      expect(open.map((e) => `${e.mode.toString(8)} ${e.path}`)).toEqual([]);
      console.log(
        `data dir permissions: ${entries.length} files and directories under DATA_DIR, ${open.length} readable or writable by group or others`,
      );
    },
    120_000,
  );

  it("refuses an existing DATA_DIR writable by group or others: one line, exit code 2, nothing written", async () => {
    const outcomes: string[] = [];
    for (const mode of [0o777, 0o770, 0o757]) {
      const dataDir = join(mkdtempSync(join(tmpdir(), "fitness-perm-")), "data");
      mkdirSync(dataDir);
      chmodSync(dataDir, mode);
      const { code, output } = await startExpectingExit(dataDir);
      const lines = output.trim().split("\n");
      expect(code).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/writable by group or others/);
      expect(output).not.toMatch(/\n\s+at |Error:/);
      expect(readdirSync(dataDir)).toEqual([]);
      outcomes.push(`${mode.toString(8)} → exit ${code}`);
    }
    console.log(`data dir permissions: refused ${outcomes.join(", ")}`);
  }, 180_000);
});
