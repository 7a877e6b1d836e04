// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import FitParser from "fit-file-parser";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { uploadActivity } from "./device-totals.ts";

/**
 * Issue #32 item 3: a pool swim whose heart rate is only in FIT hr messages (global 132), not in its
 * records, has a heart-rate stream. Uploaded over HTTP; the stream is compared with the file's own
 * session summary read in the test with fit-file-parser. The device averages heart rate over the
 * swimming only (its active lengths), not the rests between them, so the stream's mean is taken over
 * the active lengths.
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

type Mesg = Record<string, any>;

async function readSummary(file: string): Promise<{ session: Mesg; lengths: Mesg[]; recordHr: number }> {
  const bytes = readFileSync(deviceFile(file));
  const parser = new FitParser({ mode: "list", force: false });
  const fit = await parser.parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const records = (fit.records ?? []) as Mesg[];
  return {
    session: (fit.sessions ?? [])[0] as Mesg,
    lengths: (fit.lengths ?? []) as Mesg[],
    recordHr: records.filter((r) => r.heart_rate != null && r.heart_rate > 0 && r.heart_rate < 255).length,
  };
}

describe("pool swims: heart-rate stream from the FIT hr messages", () => {
  for (const file of ["fit/garmin-fenix3-pool-swim-hr-messages.fit", "fit/garmin-fr735xt-pool-swim-lengths.fit"]) {
    it(file, async () => {
      const { session, lengths, recordHr } = await readSummary(file);
      expect(recordHr, "the file's records carry no heart rate").toBe(0);
      const bytes = new Uint8Array(readFileSync(deviceFile(file)));
      const activity = await uploadActivity(server, athlete, bytes, file.split("/").pop()!);
      expect(activity.type).toBe("Swim");

      const res = await server.api("GET", `/v3/activities/${activity.id}/streams`, {
        token: athlete.token,
        query: { keys: "heartrate,time", key_by_type: "true" },
      });
      expect(res.status).toBe(200);
      const hr = res.body.heartrate?.data as (number | null)[] | undefined;
      const time = res.body.time?.data as number[];
      expect(hr, "a heartrate stream").toBeDefined();
      expect(hr!.length).toBe(time.length);

      // Coverage: both files' hr messages run from before the start to the end of the swim.
      const present = hr!.filter((v) => v !== null && v > 0) as number[];
      const coverage = present.length / hr!.length;
      expect(coverage, `coverage ${coverage}`).toBeGreaterThanOrEqual(0.8);

      // Mean over the active lengths and maximum against the session's own figures.
      const start = Date.parse(activity.start_date);
      const active = lengths.filter((l) => l.length_type === "active").map((l) => {
        const from = (l.start_time as Date).getTime() - start;
        return [from, from + l.total_elapsed_time * 1000];
      });
      const inActive = hr!.filter((v, i) =>
        v !== null && v > 0 && active.some(([a, b]) => time[i] * 1000 >= a && time[i] * 1000 <= b)
      ) as number[];
      expect(inActive.length).toBeGreaterThan(active.length);
      const activeMean = inActive.reduce((a, b) => a + b, 0) / inActive.length;
      const max = Math.max(...present);
      expect(Math.abs(activeMean - session.avg_heart_rate), `mean ${activeMean} vs ${session.avg_heart_rate}`)
        .toBeLessThanOrEqual(2);
      expect(Math.abs(max - session.max_heart_rate), `max ${max} vs ${session.max_heart_rate}`).toBeLessThanOrEqual(2);
      expect(Math.min(...present)).toBeGreaterThanOrEqual(40);

      // The activity's own figures stay the session's.
      expect(Math.abs(activity.average_heartrate - session.avg_heart_rate)).toBeLessThanOrEqual(1);
      expect(activity.max_heartrate).toBe(session.max_heart_rate);
    });
  }
});
