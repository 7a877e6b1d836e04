import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * The real Python Strava tools (stravalib 2.5.0, strava-offline 1.1.1), unchanged, for the
 * *.shared.test.ts suites that run them: a virtual environment built by
 * ../shared/ecosystem/python/install.sh (offline, about a minute) — the one .ci/run builds and names
 * in STRAVA_TOOLS_VENV, else one built here once per version of install.sh and kept in the temp
 * folder — and a runner that starts a tool through strava_here.py, which points its requests at
 * this server (see there).
 */
const run = promisify(execFile);
const HERE = resolve(import.meta.dirname!);
export const INSTALL = resolve(HERE, "../../../../shared/ecosystem/python/install.sh");

function ready(venv: string): boolean {
  return existsSync(join(venv, "bin/python")) && existsSync(join(venv, ".complete"));
}

/** The venv's python, building the venv first when there is none (one builder at a time: a lock folder). */
export async function stravaToolsPython(): Promise<string> {
  const given = process.env.STRAVA_TOOLS_VENV;
  if (given && existsSync(join(given, "bin/python"))) return join(given, "bin/python");
  const version = createHash("sha256").update(readFileSync(INSTALL)).digest("hex").slice(0, 12);
  const venv = join(tmpdir(), `fitness-strava-tools-${version}`);
  const lock = `${venv}.lock`;
  for (let waited = 0; !ready(venv); waited += 1000) {
    let mine = false;
    try {
      mkdirSync(lock);
      mine = true;
    } catch {
      // Another test file builds it: wait for it (at most 10 minutes).
      if (waited > 600_000) throw new Error(`${lock} held for 10 minutes`);
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    if (mine) {
      try {
        if (!ready(venv)) {
          rmSync(venv, { recursive: true, force: true });
          await run("bash", [INSTALL, venv], { maxBuffer: 64 * 1024 * 1024, timeout: 900_000 });
          writeFileSync(join(venv, ".complete"), version);
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
  }
  return join(venv, "bin/python");
}

export interface ToolRun {
  stdout: string;
  stderr: string;
  /** The requests the tool made, "METHOD URL" as it addressed them (https://www.strava.com/…). */
  requests: string[];
}

/**
 * Runs `python strava_here.py ARGS` with the tool's requests sent to `server` (its base URL).
 * A tool that fails rejects with its stderr.
 */
export async function runTool(
  python: string,
  server: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<ToolRun> {
  const log = join(tmpdir(), `strava-here-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
  try {
    const { stdout, stderr } = await run(python, [join(HERE, "strava_here.py"), ...args], {
      env: { ...process.env, ...options.env, STRAVA_HERE: server, STRAVA_HERE_LOG: log, PYTHONUNBUFFERED: "1" },
      cwd: options.cwd,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    }).catch((error: { stderr?: string; message: string }) => {
      throw new Error(`${args.join(" ")} failed: ${error.stderr || error.message}`);
    });
    const requests = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    return { stdout, stderr, requests };
  } finally {
    rmSync(log, { force: true });
  }
}

/** One step of stravalib_calls.py: its JSON answer. */
export async function stravalibStep(
  python: string,
  server: string,
  step: string,
  args: Record<string, unknown>,
): Promise<{ result: unknown; requests: string[] }> {
  const out = await runTool(python, server, [join(HERE, "stravalib_calls.py"), step, JSON.stringify(args)]);
  return { result: JSON.parse(out.stdout), requests: out.requests };
}
