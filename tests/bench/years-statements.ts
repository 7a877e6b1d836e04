/**
 * `deno run -A tests/bench/years-statements.ts DIR`: what each API call of the years bench's pages
 * reads in the database, at 2,060 activities and at 300 — on a data directory the bench kept
 * (`npm run bench -- years --years-keep` prints it). Each request is sent once to warm up, then once
 * with its statements recorded; each statement is then run again under EXPLAIN (ANALYZE, BUFFERS):
 * the rows its scans read (returned plus removed by a filter) and the buffers it touched, summed per
 * call. Structure-level evidence that does not move with the machine's load: a read whose rows grow
 * with the history (not with its answer) shows here at both sizes side by side. `--statements`
 * lists each statement; `--time=N` then times each call N times in process, alternating the athletes.
 */
import { join } from "node:path";
import process from "node:process";
import { createApp } from "../../server/app.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type PlanNode, scannedRows } from "../helpers/plan-scans.ts";

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const monday = (ms: number) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;

const dir = process.argv[2];
if (!dir) {
  console.error("usage: deno run -A tests/bench/years-statements.ts DIR (a data directory the years bench kept)");
  process.exit(2);
}
const platform = await openPlatform(
  configFromEnv({ dataDir: join(dir, "data"), databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
const { app } = createApp(platform);
const db = platform.db;
const recorded: { sql: string; params: unknown[] }[] = [];
let recording = false;
const query = db.query.bind(db);
db.query = ((sql: string, params?: unknown[]) => {
  if (recording) recorded.push({ sql, params: params ?? [] });
  return query(sql, params);
}) as typeof db.query;

async function profile(path: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  await (await app.request(path, { headers })).arrayBuffer();
  recorded.length = 0;
  recording = true;
  const res = await app.request(path, { headers });
  const bytes = (await res.arrayBuffer()).byteLength;
  recording = false;
  const statements = [...recorded];
  const lines: string[] = [];
  let rows = 0, buffers = 0;
  for (const s of statements) {
    if (!/^\s*(select|with)\b/i.test(s.sql)) {
      lines.push(`    (not explained) ${s.sql.replace(/\s+/g, " ").slice(0, 80)}`);
      continue;
    }
    const [plan] = await query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `explain (analyze, buffers, format json) ${s.sql}`,
      s.params,
    );
    const root = plan["QUERY PLAN"][0].Plan;
    const found = scannedRows(root);
    const hit = (root["Shared Hit Blocks"] ?? 0) + (root["Shared Read Blocks"] ?? 0);
    rows += found.rows;
    buffers += hit;
    lines.push(
      `    ${String(found.rows).padStart(6)} rows read, ${String(hit).padStart(4)} buffers, ${
        String(root["Actual Rows"]).padStart(4)
      } out: ${s.sql.replace(/\s+/g, " ").trim().slice(0, 70)} [${found.scans.join(", ")}]`,
    );
  }
  return { status: res.status, bytes, statements: statements.length, rows, buffers, lines };
}

try {
  const athletes = await query<{ id: string; email: string }>(
    "select id, email from athletes where email like 'ada%@years.example' order by id",
  );
  const [owner] = await query<{ id: string }>("select id from athletes where email = 'owner@years.example'");
  const application = await createApplication(platform, {
    name: "Years statements",
    ownerId: Number(owner.id),
    callbackDomain: "localhost",
    internal: true,
  });
  const today = Date.now();
  const year = new Date(today).getUTCFullYear();
  const timed: { token: string; calls: string[] }[] = [];
  for (const athlete of athletes) {
    const id = Number(athlete.id);
    const token = await issueToken(platform, {
      athleteId: id,
      applicationId: application.client_id,
      permissions: ["read", "write", "view_private"],
    });
    const [span] = await query<{ first: string; n: string }>(
      "select min(local_day) as first, count(*) as n from activity_list where athlete_id = $1",
      [id],
    );
    // As the bench: the long history's month 3 years back, the short one's fourth full month.
    const long = Number(span.n) > 1000;
    const firstMs = Date.parse(`${span.first}T00:00:00Z`);
    const pastMonth = long
      ? iso(Date.UTC(year - 3, new Date(today).getUTCMonth(), 1)).slice(0, 7)
      : iso(Date.UTC(new Date(firstMs).getUTCFullYear(), new Date(firstMs).getUTCMonth() + 4, 1)).slice(0, 7);
    const [py, pm] = pastMonth.split("-").map(Number);
    const first = Date.UTC(py, pm - 1, 1), last = Date.UTC(py, pm, 0);
    const gridFrom = monday(first), gridTo = monday(last) + 6 * DAY;
    const chartFrom = monday(last) - 11 * 7 * DAY;
    const v = `/v3/athletes/${id}/volume`, s = `/v3/athletes/${id}/activities/search`;
    const calls = [
      `${s}?per_page=30&q=parkrun`,
      `${s}?per_page=30&sport_type=Swim`,
      `/v3/athletes/${id}/profile`,
      `${v}?period=day&from=${iso(Math.min(gridFrom, chartFrom))}&to=${iso(gridTo)}`,
      `${s}?from=${iso(gridFrom)}&to=${iso(gridTo)}&per_page=200`,
      `${v}?period=day&from=${iso(today - 27 * DAY)}&to=${iso(today)}`,
      `/v3/athletes/${id}/activities?page=1&per_page=10`,
      `/v3/athletes/${id}/fitness`,
      `/v3/athletes/${id}/fitness?days=180`,
      `${v}?period=year&from=1900-01-01&to=2200-12-31`,
      `${v}?period=week&from=${year}-01-01&to=${year}-12-31`,
    ];
    console.log(`\n## athlete ${id}: ${span.n} activities since ${span.first}`);
    for (const path of calls) {
      const p = await profile(path, token);
      console.log(
        `${
          path.replace(`/athletes/${id}/`, "/athletes/:id/")
        }\n  → ${p.status}, ${p.bytes} bytes; ${p.statements} statements, ${p.rows} rows read, ${p.buffers} buffers`,
      );
      if (process.argv.includes("--statements")) console.log(p.lines.join("\n"));
    }
    timed.push({ token, calls });
  }
  // --time=N: each call's p50 of N, the athletes' requests alternating (a machine's load falls on both alike).
  const runs = Number(process.argv.find((a) => a.startsWith("--time="))?.split("=")[1] ?? 0);
  if (runs > 0 && timed.length === 2) {
    console.log(`\n## p50 of ${runs} in-process requests, alternating: ${athletes[0].id} / ${athletes[1].id}`);
    const once = async (token: string, path: string) => {
      const t = performance.now();
      await (await app.request(path, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
      return performance.now() - t;
    };
    const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (let i = 0; i < timed[0].calls.length; i++) {
      const a: number[] = [], b: number[] = [];
      for (let r = 0; r < runs + 3; r++) {
        const ta = await once(timed[0].token, timed[0].calls[i]);
        const tb = await once(timed[1].token, timed[1].calls[i]);
        if (r >= 3) a.push(ta), b.push(tb);
      }
      const label = timed[0].calls[i].replace(`/athletes/${athletes[0].id}/`, "/athletes/:id/");
      console.log(`${label}: ${p50(a).toFixed(2)} / ${p50(b).toFixed(2)} ms (${(p50(a) / p50(b)).toFixed(2)}×)`);
    }
  }
} finally {
  await platform.close();
}
