// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { api } from "../helpers/http.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";
import { generateRide } from "./uploads.bench.ts";

/**
 * Crop, split and effort comparison (issue #47 items 5 and 6) at a real athlete's size: a 6 h ride
 * at 1 Hz (21,600 records) on a 20 km loop. Crop and split derive the ride again from its file over
 * the window (in the derive pool, off the event loop), next to the upload of the same file measured
 * in the same run (its derivation is the work a crop repeats); a comparison of two laps' efforts next
 * to reading the same two efforts' streams. `npm run bench -- crop [--runs=N]` (default 3).
 */
export const cropBench: BenchSuite = async (args) => {
  const runs = Number(args.find((a) => a.startsWith("--runs="))?.slice(7) ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), "bench-crop-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined, passwordCost: "test" }),
  );
  const call = api(server.url);
  const figures: BenchFigure[] = [];
  try {
    const { platform } = server;
    const ownerId = await createAthlete(platform, {
      firstname: "B",
      lastname: "O",
      email: "bench-owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Bench",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
    });
    const athlete = async (n: number) => {
      const id = await createAthlete(platform, {
        firstname: `Rider${n}`,
        lastname: "Bench",
        email: `rider${n}@example.com`,
        password: "password123",
      });
      return issueToken(platform, {
        athleteId: id,
        applicationId: app.client_id,
        permissions: ["read", "write", "view_private"],
      });
    };
    const ride = generateRide(21_600, "2024-05-05T07:00:00Z");
    const upload = async (token: string) => {
      const form = new FormData();
      form.set("file", new Blob([ride as Uint8Array<ArrayBuffer>]), "ride.fit");
      form.set("data_type", "fit");
      const created = await call("POST", "/v3/uploads", { token, multipart: form });
      for (;;) {
        const status = await call("GET", `/v3/uploads/${created.body.id}`, { token });
        if (status.body.error) throw new Error(status.body.error);
        if (status.body.activity_id) return status.body.activity_id as number;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const timed = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const ok = <R extends { status: number; text: string }>(res: R, status = 200): R => {
      if (res.status !== status) throw new Error(`${res.status}: ${res.text}`);
      return res;
    };

    const uploads: number[] = [];
    const tokens: string[] = [];
    for (let i = 0; i < runs; i++) tokens.push(await athlete(i));
    let activity = 0;
    for (const token of tokens) uploads.push(await timed(async () => (activity = await upload(token))));
    const token = tokens[tokens.length - 1];
    const crops: number[] = [], splits: number[] = [], undos: number[] = [];
    for (let i = 0; i < runs; i++) {
      crops.push(
        await timed(async () =>
          ok(
            await call("POST", `/v3/activities/${activity}/crop`, {
              token,
              json: { start_time: 600, end_time: 21_000 },
            }),
          )
        ),
      );
      undos.push(
        await timed(async () => ok(await call("DELETE", `/v3/activities/${activity}/edits/${2 * i + 1}`, { token }))),
      );
      splits.push(
        await timed(async () =>
          ok(await call("POST", `/v3/activities/${activity}/split`, { token, json: { time: 10_800 } }), 201)
        ),
      );
      undos.push(
        await timed(async () => ok(await call("DELETE", `/v3/activities/${activity}/edits/${2 * i + 2}`, { token }))),
      );
    }
    const upload50 = percentiles(uploads).p50;
    const base = {
      suite: "crop",
      unit: "ms",
      higherIsBetter: false,
      baseline: upload50,
      baselineName: "upload of the file",
    };
    figures.push({ ...base, name: "crop a 6 h ride (21,600 records) to 5:40 h, p50", ours: percentiles(crops).p50 });
    figures.push({ ...base, name: "split a 6 h ride at 3 h, p50", ours: percentiles(splits).p50 });
    figures.push({ ...base, name: "undo a crop or split of it, p50", ours: percentiles(undos).p50 });

    // Two laps of the loop on a segment cut from the first lap.
    const made = ok(
      await call("POST", "/v3/segments", {
        token,
        json: { name: "Lap", activity_id: activity, start_index: 100, end_index: 1300 },
      }),
      201,
    );
    const efforts = ok(await call("GET", `/v3/segments/${made.body.id}/all_efforts`, { token })).body as any[];
    const pair = efforts.slice(0, 2).map((e) => String(e.id));
    const compares: number[] = [], reads: number[] = [];
    for (let i = 0; i < 5 * runs; i++) {
      compares.push(
        await timed(async () =>
          ok(
            await call("GET", `/v3/segments/${made.body.id}/compare`, { token, query: { effort_ids: pair.join(",") } }),
          )
        ),
      );
      reads.push(
        await timed(async () => {
          for (const id of pair) {
            ok(
              await call("GET", `/v3/segment_efforts/${id}/streams`, {
                token,
                query: { keys: "time,distance,heartrate,watts,velocity_smooth" },
              }),
            );
          }
        }),
      );
    }
    figures.push({
      suite: "crop",
      name: `compare two efforts of a 6 h ride (${efforts.length} efforts on the segment), p50`,
      ours: percentiles(compares).p50,
      baseline: percentiles(reads).p50,
      baselineName: "both efforts' streams read",
      unit: "ms",
      higherIsBetter: false,
    });
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
};
