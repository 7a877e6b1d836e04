import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { importArchive } from "../../server/archive/import.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { writeZip } from "../archive/archives.ts";
import { type GeneratedActivity, generateYears } from "../helpers/athlete-years.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";

/**
 * `npm run bench -- years` (issue 43, item 6): a real athlete's years. Two athletes on one server
 * (as `npm start` runs it, PGlite on disk), each imported from a generated Strava export through the
 * archive importer (tests/helpers/athlete-years.ts: rides with power, virtual rides, runs, swims,
 * hikes, manual workouts, two bikes, two pairs of shoes, ~3 % private): 2,060 activities over 5
 * years, and 300 over the last 9 months (the same density: a month, a week, a page holds the same).
 * A heatmap of each is built. Then, for each page, p50 of the API calls it makes (in parallel as the
 * page does, the page's own token, after warm-up; the two athletes' runs in turn) and p50 of the page in Chromium at 1280 and 390 px (navigation
 * to the page's own "drawn" marker, Chromium's clock; tests/bench/years-pages.mjs), at 2,060 next to
 * 300 (the baseline). Targets: every page within 1 s, each read at 2,060 within 1.3× of at 300.
 *
 * Options: --years-activities=N (default 2060), --years-small=N (300), --years-runs=N (API runs per
 * call, 30), --years-page-runs=N (Chromium loads per page and width, 5), --years-keep (leave the
 * data directory and print it).
 */
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const monday = (ms: number) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;

function option(args: string[], name: string, fallback: number): number {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
}

interface Athlete {
  label: string;
  id: number;
  email: string;
  token: string;
  generated: GeneratedActivity[];
  /**
   * A month shown by the calendar: 3 years ago for the long history; the fourth full month of the
   * short one, so that its 12-week chart (from 11 weeks before the month's last Monday) lies within
   * the history too — the same days with activities at both sizes, not fewer at 300.
   */
  pastMonth: string;
  longestRide: number;
  heatmapPath: string;
  /** A cursor deep in the list (85 % of the way down). */
  deepCursor: string;
}

/** The requests each page makes (as its script does), for one athlete. */
function pageCalls(a: Athlete): [string, string[]][] {
  const today = Date.now();
  const year = new Date(today).getUTCFullYear();
  const weekStart = monday(today);
  const [py, pm] = a.pastMonth.split("-").map(Number);
  const first = Date.UTC(py, pm - 1, 1), last = Date.UTC(py, pm, 0);
  const gridFrom = monday(first), gridTo = monday(last) + 6 * DAY;
  const chartFrom = monday(last) - 11 * 7 * DAY;
  const v = `/v3/athletes/${a.id}/volume`;
  const s = `/v3/athletes/${a.id}/activities/search`;
  return [
    ["feed", [
      "/v3/activities/following?page=1&per_page=20",
      `${v}?period=week&from=${iso(weekStart)}&to=${iso(weekStart + 6 * DAY)}`,
      `${v}?period=year&from=${year}-01-01&to=${year}-12-31`,
      "/v3/athlete/clubs",
    ]],
    ["activities", [`${s}?per_page=30`, "/v3/athlete"]],
    ["activities: search", [`${s}?per_page=30&q=parkrun`, `${s}?per_page=30&sport_type=Swim`]],
    ["activities: a page 85 % down", [`${s}?per_page=30&before=${a.deepCursor}`]],
    ["calendar (a past month)", [
      `/v3/athletes/${a.id}/profile`,
      `${v}?period=day&from=${iso(Math.min(gridFrom, chartFrom))}&to=${iso(gridTo)}`,
      `${s}?from=${iso(gridFrom)}&to=${iso(gridTo)}&per_page=200`,
    ]],
    ["year", [
      `${v}?period=year&from=1900-01-01&to=2200-12-31`,
      `${v}?period=week&from=${year}-01-01&to=${year}-12-31`,
    ]],
    ["records", [`/v3/athletes/${a.id}/records`, `/v3/athletes/${a.id}/records?year=${year}`]],
    ["profile", [
      `/v3/athletes/${a.id}/profile`,
      `${v}?period=day&from=${iso(today - 27 * DAY)}&to=${iso(today)}`,
      `/v3/athletes/${a.id}/activities?page=1&per_page=10`,
    ]],
    ["fitness", [`/v3/athletes/${a.id}/fitness`]],
    // The default window is a year: 9 months of the short history hold fewer days than it (content,
    // not history). The last 180 days hold the same at both sizes.
    ["fitness (the last 180 days)", [`/v3/athletes/${a.id}/fitness?days=180`]],
    ["heatmaps", ["/v3/athlete/heatmaps"]],
    ["activity (longest ride)", [
      `/v3/activities/${a.longestRide}`,
      `/v3/activities/${a.longestRide}/streams?keys=latlng,altitude,velocity_smooth,heartrate,watts,cadence,time,distance&resolution=medium`,
    ]],
  ];
}

function pagePaths(a: Athlete): { name: string; path: string; mark: string }[] {
  return [
    { name: "feed", path: "/", mark: "feedPages+totals" },
    { name: "activities", path: "/activities", mark: "lists" },
    { name: "activities: search", path: "/activities?q=parkrun", mark: "lists" },
    { name: "calendar (a past month)", path: `/athletes/${a.id}/calendar?month=${a.pastMonth}`, mark: "calendar" },
    { name: "year", path: `/athletes/${a.id}/year`, mark: "year" },
    { name: "records", path: `/athletes/${a.id}/records`, mark: "records" },
    { name: "profile", path: `/athletes/${a.id}`, mark: "profile+athleteActivities" },
    { name: "fitness", path: `/athletes/${a.id}/fitness`, mark: "fitness" },
    { name: "heatmaps", path: "/heatmaps", mark: "heatmaps" },
    { name: "heatmap viewer", path: a.heatmapPath, mark: "heatmapViewer" },
    { name: "activity (longest ride)", path: `/activities/${a.longestRide}`, mark: "activityDrawn" },
  ];
}

/** Runs years-pages.mjs under Node (playwright-core drives Debian's chromium). */
function chromiumTimes(url: string, spec: unknown): Promise<{ times: Record<string, number[]>; errors: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [join(import.meta.dirname!, "years-pages.mjs"), url, JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "", err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`years-pages.mjs exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split("\n").pop()!));
    });
  });
}

export const yearsBench: BenchSuite = async (args) => {
  const large = option(args, "years-activities", 2060);
  const small = option(args, "years-small", 300);
  const runs = option(args, "years-runs", 30);
  const pageRuns = option(args, "years-page-runs", 5);
  const dir = mkdtempSync(join(tmpdir(), "bench-years-"));
  const server = await startServer(
    configFromEnv({
      port: 0,
      dataDir: join(dir, "data"),
      seedDemo: false,
      quiet: true,
      databaseUrl: undefined,
      passwordCost: "test",
      // The bench's thousands of reads are not an application's traffic.
      rateLimitShort: 100_000_000,
      rateLimitLong: 100_000_000,
      athleteRateLimitShort: 100_000_000,
      athleteRateLimitLong: 100_000_000,
    }),
  );
  const figures: BenchFigure[] = [];
  const push = (name: string, ours: number, baseline: number | undefined, unit: string, target?: string) =>
    figures.push({
      suite: "years",
      name,
      ours,
      baseline,
      baselineName: baseline === undefined ? undefined : `at ${small}`,
      unit,
      higherIsBetter: false,
      target,
    });
  try {
    const today = iso(Date.now());
    const owner = await createAthlete(server.platform, {
      firstname: "Bench",
      lastname: "Owner",
      email: "owner@years.example",
      password: "password123",
    });
    const app = await createApplication(server.platform, {
      name: "Years bench",
      ownerId: owner,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
      challengesEnabled: true,
    });
    const athletes: Athlete[] = [];
    for (const [label, count] of [[String(large), large], [String(small), small]] as const) {
      // The same density as 2,060 over five years, over at most 30 years: the recordings are FIT
      // files, whose clock starts at 1989-12-31 (a 10× run over 50 years lost the first 5,014).
      const generated = generateYears({
        activities: count,
        years: Math.min((5 * count) / 2060, 30),
        end: today,
        seed: 43,
      });
      const zip = join(dir, `export-${count}.zip`);
      await writeZip(zip, generated.entries);
      const email = `ada${count}@years.example`;
      const id = await createAthlete(server.platform, {
        firstname: "Ada",
        lastname: `Years ${count}`,
        email,
        password: "password123",
      });
      const t0 = performance.now();
      const summary = await importArchive(server.platform, { athleteId: id, path: zip, via: "bench" });
      const seconds = (performance.now() - t0) / 1000;
      if (summary.imported !== count) {
        throw new Error(`imported ${summary.imported} of ${count}: ${JSON.stringify(summary.failed.slice(0, 3))}`);
      }
      console.error(`imported ${count} activities in ${seconds.toFixed(0)} s (${(count / seconds).toFixed(1)}/s)`);
      figures.push({
        suite: "years",
        name: `import of ${count} activities (archive), activities/s`,
        ours: count / seconds,
        unit: "/s",
        higherIsBetter: true,
      });
      const token = await issueToken(server.platform, {
        athleteId: id,
        applicationId: app.client_id,
        permissions: ["read", "write", "view_private"],
      });
      const call = async (path: string) => {
        const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const body = await res.json();
        if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
        return body;
      };
      // The longest ride, a cursor 85 % down the list, a past month.
      const rides = generated.activities.filter((a) => a.type === "Ride");
      const longest = rides.reduce((m, a) => (a.distance > m.distance ? a : m), rides[0]);
      const found = await call(
        `/v3/athletes/${id}/activities/search?per_page=5&sport_type=Ride&from=${longest.localDay}&to=${longest.localDay}`,
      );
      const longestRide = found.activities.find((a: { distance: number }) =>
        Math.abs(a.distance - longest.distance) < 50
      )
        ?.id ?? found.activities[0].id;
      const deep = generated.activities[Math.floor(count * 0.15)];
      const deepCursor = `${Math.floor(deep.startMs / 1000)}.0`;
      const pastMonth = count === large
        ? iso(Date.UTC(new Date().getUTCFullYear() - 3, new Date().getUTCMonth(), 1)).slice(0, 7)
        : iso(Date.UTC(
          new Date(generated.activities[0].startMs).getUTCFullYear(),
          new Date(generated.activities[0].startMs).getUTCMonth() + 4,
          1,
        )).slice(0, 7);
      // A heatmap of everything with positions: built, its build time reported.
      const t1 = performance.now();
      const created = await fetch(`${server.url}/v3/athlete/heatmaps`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ activity_type_ids: [1, 2, 3, 4, 25] }),
      }).then((r) => r.json());
      for (;;) {
        server.platform.jobs.kick();
        const p = await call(`/v3/athletes/${id}/heatmaps/${created.id}/progress`);
        if (p.status === "done") break;
        if (p.status === "error") throw new Error(p.status_message);
        await new Promise((r) => setTimeout(r, 200));
      }
      figures.push({
        suite: "years",
        name: `heatmap of ${count} activities built`,
        ours: performance.now() - t1,
        unit: "ms",
        higherIsBetter: false,
      });
      athletes.push({
        label,
        id,
        email,
        token,
        generated: generated.activities,
        pastMonth,
        longestRide,
        heatmapPath: new URL(created.web_url).pathname,
        deepCursor,
      });
    }
    // The API calls of each page, p50 at each size.
    const [big, little] = athletes;
    // Each page's calls at both sizes in turn, the order swapped every run: a load that comes and
    // goes on the machine (or the runtime's warm-up) falls on both sides alike.
    const once = async (a: Athlete, paths: string[]) => {
      const t = performance.now();
      await Promise.all(paths.map(async (p) => {
        const res = await fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${a.token}` } });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${p}: ${res.status}`);
      }));
      return performance.now() - t;
    };
    const bigCalls = pageCalls(big), littleCalls = pageCalls(little);
    for (let i = 0; i < bigCalls.length; i++) {
      const [name, paths] = bigCalls[i];
      const littlePaths = littleCalls[i][1];
      const ours: number[] = [], baseline: number[] = [];
      for (let r = 0; r < runs + 5; r++) {
        const [first, second] = r % 2 === 0 ? [big, little] : [little, big];
        const a = await once(first, first === big ? paths : littlePaths);
        const b = await once(second, second === big ? paths : littlePaths);
        if (r < 5) continue; // warm-up
        (first === big ? ours : baseline).push(a);
        (second === big ? ours : baseline).push(b);
      }
      push(
        `API calls of ${name} (${paths.length}, in parallel), p50`,
        percentiles(ours).p50,
        percentiles(baseline).p50,
        "ms",
        "≤ 1.3× at 300",
      );
    }
    // Each page in Chromium at both widths.
    const spec = {
      runs: pageRuns,
      athletes: athletes.map((a) => ({ label: a.label, email: a.email, password: "password123", pages: pagePaths(a) })),
    };
    const { times, errors } = await chromiumTimes(server.url, spec);
    if (errors.length) console.error(`page errors:\n${errors.join("\n")}`);
    for (const page of pagePaths(big)) {
      for (const width of [1280, 390]) {
        const ours = percentiles(times[`${big.label}|${page.name}|${width}`]).p50;
        const baseline = percentiles(times[`${little.label}|${page.name}|${width}`]).p50;
        push(`page ${page.name} at ${width} px, drawn (p50)`, ours, baseline, "ms", "≤ 1,000 ms at 2,060");
      }
    }
    if (args.includes("--years-keep")) console.error(`data directory kept: ${dir} (${server.url} stops now)`);
  } finally {
    await server.close();
    if (!args.includes("--years-keep")) rmSync(dir, { recursive: true, force: true });
  }
  return figures;
};
