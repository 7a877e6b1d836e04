import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname!, "../..");
export const DENO = join(ROOT, "node_modules/.bin/deno");

export interface DenoServer {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** Stops it (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the real server the way `npm start` does: Deno, a real port, PGlite on disk. */
export async function startDenoServer(
  options: { dataDir?: string; env?: Record<string, string>; timeoutMs?: number; wrapper?: string[] } = {},
): Promise<DenoServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "fitness-deno-"));
  // wrapper: a command that runs the server, e.g. ["strace", "-f", "-o", file] (it must pass signals on).
  const [program, ...args] = [...(options.wrapper ?? []), DENO, "run", "-A", "server/main.ts"];
  const child = spawn(program, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", DATA_DIR: dataDir, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), options.timeoutMs ?? 60_000);
    // Stops looking once found: the output keeps growing (request log), and matching the whole of
    // it on every chunk made this process's own work grow with the run (and its garbage collector
    // take cores from the server under test).
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolveUrl(m[1]);
      }
    };
    child.stdout!.on("data", check);
    child.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${out}`));
    });
  });
  // Give the banner (printed after listening) a moment to be complete.
  await new Promise((r) => setTimeout(r, 200));
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    child,
    output: () => out,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the admin CLI the way `npm run cli --` does (Deno). */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(DENO, ["run", "-A", "server/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolveRun({ code, stdout, stderr }));
  });
}
