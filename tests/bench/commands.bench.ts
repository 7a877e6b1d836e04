import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";
import { generateRide } from "./uploads.bench.ts";

/**
 * Commands on a big activity: kudos and comments over HTTP on an uploaded 6 h 1 Hz FIT ride (its
 * stream holds the upload's ~0.5 MB of facts) next to the same commands on a manual activity, in
 * the same run on the same server, interleaved. Each is a fresh athlete's first kudos (a real
 * command, never a no-op). The first command on the ride after its upload is reported apart: it is
 * the one that folds the ride's stream from the log; later ones fold only the events after the
 * state handleCommand keeps.
 */
const ATHLETES = 60;

export const commandsBench: BenchSuite = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-commands-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined }),
  );
  const figures: BenchFigure[] = [];
  try {
    const { platform } = server;
    const ownerId = await createAthlete(platform, {
      firstname: "B",
      lastname: "O",
      email: "cmd-owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Bench",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
    });
    const riderId = await createAthlete(platform, {
      firstname: "R",
      lastname: "R",
      email: "cmd-rider@example.com",
      password: "password123",
    });
    const rider = await issueToken(platform, {
      athleteId: riderId,
      applicationId: app.client_id,
      permissions: ["read", "write"],
    });
    const fans: string[] = [];
    for (let i = 0; i < ATHLETES; i++) {
      const id = await createAthlete(platform, {
        firstname: "F",
        lastname: `${i}`,
        email: `cmd-fan-${i}@example.com`,
        password: "password123",
      });
      fans.push(
        await issueToken(platform, { athleteId: id, applicationId: app.client_id, permissions: ["read", "write"] }),
      );
    }
    const call = async (method: string, path: string, token: string, body?: Record<string, string>) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text || "{}");
    };
    const manual = (await call("POST", "/v3/activities", rider, {
      name: "Manual ride",
      type: "Ride",
      start_date_local: "2024-05-01T07:00:00Z",
      elapsed_time: "21600",
      distance: "170000",
    })).id as number;
    const form = new FormData();
    form.set(
      "file",
      new Blob([generateRide(21_600, "2024-05-05T07:00:00Z").slice().buffer as ArrayBuffer]),
      "six-hours.fit",
    );
    form.set("data_type", "fit");
    const upload = await (await fetch(`${server.url}/v3/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${rider}` },
      body: form,
    })).json();
    let ride = 0;
    for (let i = 0; i < 600 && !ride; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const status = await call("GET", `/v3/uploads/${upload.id}`, rider);
      if (status.status === UPLOAD_STATUS.ready) ride = status.activity_id;
      else if (status.status !== UPLOAD_STATUS.processing) throw new Error(`upload: ${status.error}`);
    }
    const [{ bytes }] = await platform.db.query<{ bytes: number }>(
      "select sum(octet_length(data::text))::int as bytes from events where stream_id = (select stream_id from events where type = 'ActivityRecorded' and (data->>'activityId')::bigint = $1 limit 1)",
      [ride],
    );
    console.error(`commands: 6 h ride ${ride} uploaded; its stream holds ${Math.round(bytes / 1000)} kB of event data`);

    const timed = async (fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    const first = await timed(() => call("POST", `/v3/activities/${ride}/kudos`, fans[0]));
    await call("POST", `/v3/activities/${manual}/kudos`, fans[0]);
    const samples = {
      rideKudos: [] as number[],
      manualKudos: [] as number[],
      rideComment: [] as number[],
      manualComment: [] as number[],
    };
    for (let i = 1; i < ATHLETES; i++) {
      // Alternate which goes first so neither gets a systematically warmer server.
      const pairs: [number[], () => Promise<unknown>][] = [
        [samples.rideKudos, () => call("POST", `/v3/activities/${ride}/kudos`, fans[i])],
        [samples.manualKudos, () => call("POST", `/v3/activities/${manual}/kudos`, fans[i])],
        [
          samples.rideComment,
          () => call("POST", `/v3/activities/${ride}/comments`, fans[i], { text: `Great ride ${i}` }),
        ],
        [
          samples.manualComment,
          () => call("POST", `/v3/activities/${manual}/comments`, fans[i], { text: `Great ride ${i}` }),
        ],
      ];
      if (i % 2) pairs.reverse();
      for (const [into, fn] of pairs) into.push(await timed(fn));
    }
    const p50 = (s: number[]) => percentiles(s).p50;
    figures.push({
      suite: "commands",
      name: "kudos on an uploaded 6 h ride, p50",
      ours: p50(samples.rideKudos),
      baseline: p50(samples.manualKudos),
      baselineName: "kudos on a manual activity",
      unit: "ms",
      higherIsBetter: false,
      target: "≤ 1.2×",
    });
    figures.push({
      suite: "commands",
      name: "comment on an uploaded 6 h ride, p50",
      ours: p50(samples.rideComment),
      baseline: p50(samples.manualComment),
      baselineName: "comment on a manual activity",
      unit: "ms",
      higherIsBetter: false,
      target: "≤ 1.2×",
    });
    figures.push({
      suite: "commands",
      name: "first kudos on the ride after its upload (folds its stream)",
      ours: first,
      baseline: p50(samples.manualKudos),
      baselineName: "kudos on a manual activity",
      unit: "ms",
      higherIsBetter: false,
    });
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
};
