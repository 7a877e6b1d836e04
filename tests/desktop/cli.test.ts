/**
 * `npm run companion -- watch … --json` as it ships (Deno), against the real server: one JSON object
 * per line per file event, each naming the file's path.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO, ROOT } from "../helpers/deno.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { DEVICES } from "../helpers/fixtures.ts";

const FIT = join(DEVICES, "fit");
const root = mkdtempSync(join(tmpdir(), "companion-cli-"));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

function run(
  args: string[],
): {
  lines: Record<string, unknown>[];
  stderr: () => string;
  until(test: (l: Record<string, unknown>[]) => boolean, ms?: number): Promise<void>;
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
} {
  const child = spawn(DENO, ["run", "-A", "desktop/core/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  let err = "";
  const waiters: (() => void)[] = [];
  child.stdout.on("data", (d) => {
    buffer += d;
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
    for (const w of waiters) w();
  });
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return {
    lines,
    stderr: () => err,
    exited,
    until(test, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`timed out; stdout:\n${lines.map((l) => JSON.stringify(l)).join("\n")}\nstderr:\n${err}`)),
          ms,
        );
        const check = () => test(lines) && (clearTimeout(timer), resolve());
        waiters.push(check);
        child.on("exit", () =>
          setTimeout(() => {
            clearTimeout(timer);
            test(lines) ? resolve() : reject(new Error(`exited:\n${err}`));
          }, 50));
        check();
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("npm run companion -- watch --json", () => {
  it("prints seen, uploading, processing and ready with the activity id, each naming the path", async () => {
    const { token } = await server.athlete();
    const folder = join(root, "drop");
    mkdirSync(folder, { recursive: true });
    const file = join(folder, "karoo-ride.fit");
    copyFileSync(join(FIT, "garmin-edge810-cycling-power-vector.fit"), file);
    const state = join(root, "state");
    const args = [
      "watch",
      "--server",
      server.url,
      "--token",
      token,
      "--folder",
      folder,
      "--no-volumes",
      "--state",
      state,
      "--json",
    ];
    const first = run(args);
    try {
      await first.until((l) => l.some((x) => x.event === "ready"));
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const events = first.lines.filter((l) => l.path === file).map((l) => l.event);
    expect(events).toEqual(["seen", "uploading", "processing", "ready"]);
    const ready = first.lines.find((l) => l.event === "ready")!;
    expect(typeof ready.activity_id).toBe("string");
    expect((await server.api("GET", `/v3/activities/${ready.activity_id}`, { token })).status).toBe(200);

    // Run again on the same state: the file is recognised, not uploaded.
    const second = run(args);
    try {
      await second.until((l) => l.some((x) => x.event === "seen"));
    } finally {
      await second.stop();
    }
    expect(second.lines.filter((l) => l.path === file).map((l) => l.event)).toEqual(["seen"]);
    expect(second.lines.some((l) => l.event === "uploading")).toBe(false);
    expect(second.lines.find((l) => l.event === "seen")).toMatchObject({
      path: file,
      status: "ready",
      activity_id: ready.activity_id,
    });
  });

  it("without a token or sign-in it explains what to do and exits 2", async () => {
    const r = run(["watch", "--server", server.url, "--state", join(root, "empty-state"), "--no-volumes"]);
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toMatch(/Not signed in: pass --token TOKEN, or run `npm run companion -- sign-in/);
  });
});
