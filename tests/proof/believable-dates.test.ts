import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { activityDecider } from "../../events/activity/decide.ts";
import { activityStream } from "../../events/activity/events.ts";
import { handleCommand } from "../../events/decider.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { activitiesCsv, writeZip } from "../archive/archives.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { api } from "../helpers/http.ts";

/**
 * Issue #41 item 1: one upload dated 9999 froze the server (GET /v3/athletes/:id/fitness built ~2.9
 * million days on the main thread). Over HTTP against the Deno server as `npm start` runs it:
 * - the one rule for activity dates (shared/date-range.ts: 1980-01-06, the GPS epoch, to a day
 *   after the server's clock) refuses a GPX dated 9999 (the upload's error says why) and one dated
 *   1975, a manual activity of 9999 or 1979 (400 naming start_date_local), an edit carrying 9999
 *   (400 naming the field) and an archive's rows (reported, nothing created);
 * - an activity dated 9999 already in the log (planted, as from before the rule) is harmless: every
 *   read that takes a range (fitness, records, stats, lists, the calendar's and the feed's reads)
 *   answers at once, the fitness days end today;
 * - the server's event loop never runs 100 ms without turning (LOG_LOOP_STALLS_MS=100: the server
 *   splits each stall into its main thread running and waiting for a core of this shared machine;
 *   none may have run 100 ms), and GET /health, polled every 20 ms from the first request to the
 *   last, answers within a second each time and within 100 ms at least 95 % of the time (the slowest
 *   is printed: within 100 ms when the machine is not shared).
 */

const GPX = readFileSync(deviceFile("gpx/strava-export-running-hr.gpx"), "utf8");
/** The same recording with every date moved to `year`. */
const gpxIn = (year: string) => GPX.replace(/<time>\d{4}-/g, `<time>${year}-`);

let server: DenoServer | undefined;
const dataDir = mkdtempSync(join(tmpdir(), "fitness-dates-"));
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The server reports each turn of its event loop longer than 100 ms (docs/operators.md, LOG_LOOP_STALLS_MS). */
const ENV = { RATE_LIMIT_SHORT: "100000", RATE_LIMIT_LONG: "100000", LOG_LOOP_STALLS_MS: "100" };

/**
 * The loop's stalls in which the server's main thread itself ran 100 ms or more (our code holding
 * the loop). Stalls spent waiting for a core — this 2-core machine shared with other work — are
 * not the server's and are left out; the server's own split says which is which.
 */
function busyTurns(output: string): string[] {
  return output.split("\n").filter((line) => {
    const m = /event loop stall ([\d.]+) ms \(main thread on a core ([\d.]+) ms/.exec(line);
    return m !== null && Number(m[2]) >= 100;
  });
}

/** Polls GET /health every 20 ms until stopped; the slowest answer (ms) and how many answered. */
function healthWatch(url: string) {
  let stop = false;
  const times: number[] = [];
  const done = (async () => {
    while (!stop) {
      const started = performance.now();
      try {
        const res = await fetch(new URL("/health", url));
        await res.text();
        times.push(performance.now() - started);
      } catch {
        times.push(Infinity); // no answer at all
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      stop = true;
      await done;
      return { max: Math.max(...times), count: times.length, over100: times.filter((t) => t >= 100).length };
    },
  };
}

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("believable dates (Deno server, PGlite on disk)", () => {
  it("refuses dates no activity has on every way in, and a stored one costs nothing to read", async () => {
    server = await startDenoServer({ dataDir, env: ENV });
    const banner = /Access token \(athlete (\d+)[^\n]*:\n\s+(\S+)/.exec(server.output());
    expect(banner).toBeTruthy();
    const athleteId = Number(banner![1]);
    const token = banner![2];
    // An activity of 9999 already in the log (as from before the rule): planted through the decider.
    await server.stop();
    const platform = await openPlatform(
      configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }),
    );
    const planted = await nextId(platform.db, "activity");
    await handleCommand(platform.store, activityStream(planted), activityDecider, {
      type: "create",
      activity: {
        activityId: planted,
        athleteId,
        name: "From before the rule",
        type: "Run",
        sportType: "Run",
        startDate: "9999-01-01T08:00:00Z",
        startDateLocal: "9999-01-01T08:00:00Z",
        timezone: "(GMT+00:00) UTC",
        elapsedTime: 3600,
        distance: 10000,
        description: null,
        visibility: "everyone",
        trainer: false,
        commute: false,
      },
    }, { metadata: { athleteId, source: "test" } });
    await platform.close();
    server = await startDenoServer({ dataDir, env: ENV });
    const call = api(server.url);
    let health = healthWatch(server.url);

    const today = new Date().toISOString().slice(0, 10);
    const fitness = [];
    for (const days of [undefined, 30, 3650]) {
      fitness.push({ days, res: await call("GET", `/v3/athletes/${athleteId}/fitness`, { token, query: { days } }) });
    }
    const reads = [
      `/v3/athletes/${athleteId}/records`,
      `/v3/athletes/${athleteId}/stats`,
      `/v3/athletes/${athleteId}/activities`,
      "/v3/athlete/activities",
      "/v3/activities/following",
      `/v3/activities/${planted}`,
    ];
    for (const path of reads) {
      const res = await call("GET", path, { token, query: { per_page: 200 } });
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
    }
    // The calendar's month far from the data and the list's window over it (before and after
    // together: Strava's dialect, /api/v3; the spec's /v3 refuses the combination).
    const window = await call("GET", "/api/v3/athlete/activities", {
      token,
      query: { after: Date.UTC(2200, 0, 1) / 1000 - 86_400 * 400, before: Date.UTC(2201, 0, 1) / 1000 - 1 },
    });
    expect(window.status, window.text.slice(0, 300)).toBe(200);
    expect(window.body).toEqual([]);
    for (const page of [`/athletes/${athleteId}/calendar`, `/athletes/${athleteId}/fitness`, "/"]) {
      const res = await fetch(new URL(page, server.url));
      expect(res.status, page).toBeLessThan(500);
      await res.text();
    }
    const first = await health.stop();
    // The server never stopped answering (issue #41: 5.9–29 s per fitness request, /health as long).
    expect(busyTurns(server.output())).toEqual([]);
    expect(first.max, `GET /health took up to ${Math.round(first.max)} ms`).toBeLessThan(1000);
    for (const { days, res } of fitness) {
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.body.days.at(-1).date).toBe(today);
      expect(res.body.days.length).toBeLessThanOrEqual(days ?? 365);
      expect(res.body.activities.map((a: { activity_id: number }) => a.activity_id)).not.toContain(planted);
    }

    health = healthWatch(server.url);

    // Uploads: the file's own dates.
    const upload = async (year: string) => {
      const form = new FormData();
      form.set("file", new Blob([gpxIn(year)]), `run-${year}.gpx`);
      form.set("data_type", "gpx");
      const res = await call("POST", "/v3/uploads", { token, multipart: form });
      expect(res.status, res.text).toBe(201);
      return await until(`upload ${year}`, async () => {
        const u = (await call("GET", `/v3/uploads/${res.body.id}`, { token })).body;
        return u.error || u.activity_id ? u : undefined;
      });
    };
    const future = await upload("9999");
    expect(future.activity_id).toBeNull();
    expect(future.status).toBe("There was an error processing your activity.");
    expect(future.error).toMatch(/run-9999\.gpx: the file's start time 9999-01-19T21:24:20Z is in the future/);
    const past = await upload("1975");
    expect(past.activity_id).toBeNull();
    expect(past.error).toMatch(/1975-01-19T21:24:20Z is before 1980-01-06 \(the first GPS date\)/);
    const fine = await upload("2015");
    expect(fine.error).toBeNull();
    expect(fine.activity_id).toBeGreaterThan(0);

    // Manual activities and edits: 400 naming the field.
    const manual = (start: string) =>
      call("POST", "/v3/activities", {
        token,
        form: { name: "Dated", type: "Run", start_date_local: start, elapsed_time: 600 },
      });
    const tomorrowish = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 19) + "Z";
    for (const start of ["9999-01-01T08:00:00Z", "1979-12-31T08:00:00Z", tomorrowish]) {
      const res = await manual(start);
      expect(res.status, `${start}: ${res.text}`).toBe(400);
      expect(res.body.errors).toEqual([{ resource: "Activity", field: "start_date_local", code: "invalid" }]);
    }
    const made = await manual("1980-01-06T08:00:00Z");
    expect(made.status, made.text).toBe(201);
    const edited = await call("PUT", `/v3/activities/${made.body.id}`, {
      token,
      form: { name: "Renamed", start_date_local: "9999-01-01T08:00:00Z" },
    });
    expect(edited.status).toBe(400);
    expect(edited.body.errors).toEqual([{ resource: "Activity", field: "start_date_local", code: "invalid" }]);
    expect((await call("GET", `/v3/activities/${made.body.id}`, { token })).body.name).toBe("Dated");

    // An archive's manual rows and its recording.
    const zip = join(dataDir, "..", `dates-${Date.now()}.zip`);
    await writeZip(zip, [
      {
        name: "activities.csv",
        bytes: Buffer.from(activitiesCsv([
          { id: "1", date: "Jan 1, 9999, 8:00:00 AM", name: "Far future", type: "Run", elapsed: 600, km: 2 },
          { id: "2", date: "Jan 1, 1970, 8:00:00 AM", name: "Before GPS", type: "Run", elapsed: 600, km: 2 },
          {
            id: "3",
            date: "Jan 19, 9998, 9:24:20 PM",
            name: "Future file",
            type: "Run",
            elapsed: 600,
            km: 2,
            file: "activities/3.gpx",
          },
        ])),
      },
      { name: "activities/3.gpx", bytes: Buffer.from(gpxIn("9998")) },
    ]);
    const form = new FormData();
    form.set("file", new Blob([readFileSync(zip)]), "export.zip");
    const started = await call("POST", "/v3/athlete/imports", { token, multipart: form });
    rmSync(zip, { force: true });
    expect(started.status, started.text).toBe(202);
    const imported = await until("the import", async () => {
      const s = (await call("GET", `/v3/athlete/imports/${started.body.id}`, { token })).body;
      return s.status === "done" || s.status === "failed" ? s : undefined;
    });
    expect(imported.status).toBe("done");
    expect(imported.imported).toBe(0);
    const failures = imported.failed.map((f: { error: string }) => f.error).join("\n");
    expect(failures).toMatch(/Activity Date 9999-01-01T08:00:00Z is in the future/);
    expect(failures).toMatch(/Activity Date 1970-01-01T08:00:00Z is before 1980-01-06/);
    expect(failures).toMatch(/3\.gpx: the file's start time 9998-01-19T21:24:20Z is in the future/);
    const second = await health.stop();

    console.log(
      `believable dates: uploads of 9999 and 1975 refused with an error status saying why, manual 9999/1979/+2 days and an edit of 9999 → 400 start_date_local, an archive's 3 rows reported; ` +
        `with a 9999 activity in the log, fitness (3 windows) and ${reads.length} reads answered at once; GET /health ${first.count} + ${second.count} times, slowest ${
          Math.round(Math.max(first.max, second.max))
        } ms, ${first.over100 + second.over100} over 100 ms; loop turns of 100 ms or more run by the server: 0`,
    );
    expect(busyTurns(server.output())).toEqual([]);
    // Every answer within a second, and at least 95 % of them within 100 ms: the rest is this shared
    // machine's scheduling (the server ran no turn of 100 ms, asserted above), not a wait on our code.
    const polls = first.count + second.count, over = first.over100 + second.over100;
    expect(Math.max(first.max, second.max), `GET /health took up to ${Math.round(second.max)} ms`).toBeLessThan(1000);
    expect(over, `${over} of ${polls} GET /health over 100 ms`).toBeLessThanOrEqual(Math.floor(polls * 0.05));
  }, 300_000);
});
