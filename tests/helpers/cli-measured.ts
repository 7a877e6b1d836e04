import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { DENO, ROOT } from "./deno.ts";

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The process's peak resident memory (the kernel's high-water mark, VmHWM), MiB. */
  peakMiB: number;
  seconds: number;
}

/**
 * Runs the admin CLI as `npm run cli --` does (Deno) and follows its peak resident memory: the
 * kernel's own high-water mark (VmHWM, /proc/<pid>/status), read every 20 ms until the process ends
 * (the last reading is the peak of its whole life but for those last 20 ms).
 */
export function runCliMeasured(args: string[], env: Record<string, string> = {}): Promise<MeasuredRun> {
  return new Promise((resolveRun) => {
    const started = performance.now();
    const child = spawn(DENO, ["run", "-A", "server/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let peakKiB = 0;
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d: string) => (stdout += d));
    child.stderr.on("data", (d: string) => (stderr += d));
    const read = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
      } catch {
        // gone
      }
    };
    const timer = setInterval(read, 20);
    child.on("exit", (code) => {
      clearInterval(timer);
      resolveRun({ code, stdout, stderr, peakMiB: peakKiB / 1024, seconds: (performance.now() - started) / 1000 });
    });
  });
}
