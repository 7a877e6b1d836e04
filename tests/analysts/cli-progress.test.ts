import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { generateLog } from "../bench/event-log.ts";
import { DENO, ROOT } from "../helpers/deno.ts";

/**
 * `cli replay` and `cli verify` on a terminal redraw their progress line in place at least once a
 * second, from the moment the command starts (issue 18; it used to print nothing for ~13 s and
 * then jump by whole batches), also while one long statement runs. The CLI runs as `npm run cli` runs it (Deno), under a real
 * pseudo-terminal (`script`), over a log of 100,000 events; every redraw ("\r") is timestamped.
 */
const EVENTS = 100_000;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "fitness-cli-progress-"));
  const platform = await openPlatform(
    configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true, runJobs: false }),
  );
  try {
    await generateLog(platform.db, EVENTS);
  } finally {
    await platform.close();
  }
}, 240_000);

/** Runs a CLI command under a pseudo-terminal; the times (ms after spawn) of each redraw and the exit. */
function onTerminal(
  args: string[],
): Promise<{ code: number | null; redraws: number[]; output: string; exitedAt: number }> {
  const command = [DENO, "run", "-A", "server/cli/main.ts", ...args].map((a) => `'${a}'`).join(" ");
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const redraws: number[] = [];
    let output = "";
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      const at = performance.now() - started;
      for (const m of text.matchAll(/\r(replay|verify)/g)) if (m) redraws.push(at);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("exit", (code) => resolve({ code, redraws, output, exitedAt: performance.now() - started }));
  });
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}

describe("cli replay and verify progress on a terminal", () => {
  for (const command of ["replay", "verify"]) {
    it(`${command} redraws its line at least once a second until it ends`, async () => {
      const run = await onTerminal([command]);
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain(`${EVENTS}/${EVENTS} events`);
      const between = gaps(run.redraws);
      const longest = Math.max(...between);
      const sorted = [...between].sort((a, b) => a - b);
      console.log(
        `cli ${command}: first redraw ${
          Math.round(run.redraws[0])
        } ms after spawn, ${run.redraws.length} redraws over ` +
          `${Math.round(run.exitedAt)} ms, median gap ${
            Math.round(sorted[Math.floor(sorted.length / 2)])
          } ms, longest ${Math.round(longest)} ms`,
      );
      // The work takes seconds, so there must be many redraws, 95 % of them a second apart at most.
      // A worker thread draws the line (progress-ticker.ts), so a long statement in the CLI's
      // thread (PGlite runs there: verify's comparison of one 100,000-row table took 2.7 s) no
      // longer holds it; only a machine too busy to run that thread for seconds would.
      expect(run.redraws.length).toBeGreaterThan(3);
      expect(sorted[Math.floor(sorted.length * 0.95)]).toBeLessThanOrEqual(1000);
      expect(longest).toBeLessThanOrEqual(2000);
      // The last line drawn is the finished one, and the result follows it on a new line: nothing is
      // drawn over it after the command ends.
      const last = run.output.slice(run.output.lastIndexOf(`\r${command}`));
      expect(last).toMatch(new RegExp(`^\\r${command} \\[#{30}\\] ${EVENTS}/${EVENTS} events[^\\r]*\\r?\\n[^\\r]*\\S`));
      // The last redraw comes just before the exit (nothing long runs without a redraw).
      expect(run.exitedAt - run.redraws[run.redraws.length - 1]).toBeLessThan(5000);
    }, 300_000);
  }
});
