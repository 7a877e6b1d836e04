import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";
import { generateRide } from "./uploads.bench.ts";

const RUNS = 5;
const SECONDS = 6 * 3600;

/** Runs web-page.mjs under Node (playwright-core drives Debian's chromium). */
function measure(
  url: string,
  email: string,
  password: string,
  activityId: number,
): Promise<
  {
    drawn: number[];
    full: number[];
    api: number[];
    apiFull: number[];
    html: number[];
    dcl: number[];
    points: number;
    errors: string[];
  }
> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [
      join(import.meta.dirname!, "web-page.mjs"),
      url,
      email,
      password,
      String(activityId),
      String(RUNS),
    ], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`web-page.mjs exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split("\n").pop()!));
    });
  });
}

/**
 * The activity page of a 6 h ride (1 Hz FIT, 21,600 records, HR, power, cadence) in Chromium: time
 * from navigation to the map and charts drawn (reduced streams), and to the full-resolution redraw,
 * next to the time the same page takes just to fetch the API data (the floor any page has).
 */
export const webBench: BenchSuite = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-web-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined }),
  );
  try {
    const { platform } = server;
    const email = "web-bench@example.com", password = "password123";
    const athleteId = await createAthlete(platform, { firstname: "Web", lastname: "Bench", email, password });
    const app = await createApplication(platform, {
      name: "Web bench",
      ownerId: athleteId,
      callbackDomain: "localhost",
    });
    const token = await issueToken(platform, {
      athleteId,
      applicationId: app.client_id,
      permissions: ["read", "write", "view_private"],
    });
    const form = new FormData();
    form.set(
      "file",
      new Blob([generateRide(SECONDS, "2024-06-01T06:00:00Z") as Uint8Array<ArrayBuffer>]),
      "six-hours.fit",
    );
    form.set("data_type", "fit");
    const res = await fetch(`${server.url}/v3/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const upload = await res.json();
    let activityId = 0;
    for (let i = 0; i < 1200 && !activityId; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const status =
        await (await fetch(`${server.url}/v3/uploads/${upload.id}`, { headers: { authorization: `Bearer ${token}` } }))
          .json();
      if (status.error) throw new Error(`upload failed: ${status.error}`);
      activityId = status.activity_id ?? 0;
    }
    if (!activityId) throw new Error("the 6 h ride was not processed in 5 minutes");
    const m = await measure(server.url, email, password, activityId);
    if (m.errors.length) throw new Error(`page errors: ${m.errors.join("; ")}`);
    const p = (xs: number[]) => percentiles(xs).p50;
    const figures: BenchFigure[] = [
      {
        suite: "web",
        name: `6 h ride page: navigation → map + charts drawn (p50 of ${RUNS})`,
        ours: p(m.drawn),
        baseline: p(m.api),
        baselineName: "fetch activity + reduced streams alone",
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 1,000 ms",
      },
      {
        suite: "web",
        name: `6 h ride page: full resolution (${m.points.toLocaleString("en-US")} points) drawn (p50)`,
        ours: p(m.full),
        baseline: p(m.api) + p(m.apiFull),
        baselineName: "fetch activity + reduced + full streams alone",
        unit: "ms",
        higherIsBetter: false,
      },
      // Where the time goes before drawing: the page itself, then Leaflet, uPlot and the page's modules.
      { suite: "web", name: "6 h ride page: HTML received (p50)", ours: p(m.html), unit: "ms", higherIsBetter: false },
      {
        suite: "web",
        name: "6 h ride page: scripts loaded, DOMContentLoaded (p50)",
        ours: p(m.dcl),
        unit: "ms",
        higherIsBetter: false,
      },
    ];
    return figures;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
