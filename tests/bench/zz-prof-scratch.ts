import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/actions/applications.ts";
import { createAthlete } from "../../server/actions/athletes.ts";
import { configFromEnv } from "../../server/config.ts";
import { createSegments, type NewSegment } from "../../server/segments/create.ts";
import { rebuildBoards } from "../../projections/segments/boards.ts";
import { challengesProjection } from "../../projections/challenges/projection.ts";
const origApply = challengesProjection.apply.bind(challengesProjection);
if (Deno.env.get("SETCHAL")) (challengesProjection as any).apply = async (tx: any, event: any) => {
  if (event.type !== "SegmentEffortsMatched" || event.data.efforts.length < 2) return origApply(tx, event);
  const d = event.data;
  await tx.query(`insert into challenge_efforts (effort_id, activity_id, athlete_id, segment_id, start_date_local, elapsed_time, private)
    select r.effort_id, $2, $3, r.segment_id, r.start_date_local, r.elapsed_time, coalesce((select private from challenge_activities where activity_id = $2), $4)
    from jsonb_to_recordset($1::jsonb) r(effort_id text, segment_id bigint, start_date_local text, elapsed_time int) on conflict do nothing`,
    [JSON.stringify(d.efforts.slice(1).map((e: any) => ({ effort_id: e.effortId, segment_id: e.segmentId, start_date_local: e.startDateLocal, elapsed_time: e.elapsedTime }))), d.activityId, d.athleteId, d.private]);
  return origApply(tx, { ...event, data: { ...d, efforts: d.efforts.slice(0, 1) } });
};
import { startServer } from "../../server/start.ts";
import { generateRide } from "../../tests/bench/uploads.bench.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";

const CENTER: [number, number] = [45.5, 6.5];
function along(distance: number): [number, number] {
  const r = 20_000 / (2 * Math.PI);
  const a = distance / r;
  return [CENTER[0] + (r * Math.sin(a)) / 111_320, CENTER[1] + (r * Math.cos(a)) / (111_320 * Math.cos(CENTER[0] * Math.PI / 180))];
}
const dataDir = mkdtempSync(join(tmpdir(), "prof-"));
const server = await startServer(configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined }));
const { platform } = server;
// instrument
const log: { ms: number; sql: string; n: number }[] = [];
let on = false;
const db = platform.db as any;
const origTx = db.transaction.bind(db);
db.transaction = (fn: any) => origTx((tx: any) => {
  const q = tx.query.bind(tx);
  return fn({ ...tx, exec: tx.exec.bind(tx), query: async (sql: string, params?: unknown[]) => {
    const t = performance.now();
    const r = await q(sql, params);
    if (on) log.push({ ms: performance.now() - t, sql: sql.replace(/\s+/g, " ").slice(0, 140), n: r.length });
    return r;
  } });
});
try {
  const ownerId = await createAthlete(platform, { firstname: "B", lastname: "O", email: "o@example.com", password: "password123" });
  const app = await createApplication(platform, { name: "Bench", ownerId, callbackDomain: "localhost", internal: true, kudosEnabled: true, challengesEnabled: true });
  const athleteId = await createAthlete(platform, { firstname: "B", lastname: "R", email: "r@example.com", password: "password123", weight: 72 });
  const token = await issueToken(platform, { athleteId, applicationId: app.client_id, permissions: ["read", "write"] });
  const batch: NewSegment[] = [];
  for (let i = 0; i < 10000; i += 50) {
    const from = (i / 50) * 97 % 19_000;
    batch.push({ name: `Bench ${i}`, activityType: "Ride", points: [along(from), along(from + 300), along(from + 600)], altitudes: null, athleteId: ownerId, activityId: null });
  }
  await createSegments(platform, batch, "bench");
  await new Promise((r) => setTimeout(r, 3000));
  for (const [seconds, startIso] of [[3600, "2024-05-04T07:00:00Z"], [3600, "2024-05-06T07:00:00Z"], [3600, "2024-06-06T07:00:00Z"]] as const) {
    const bytes = generateRide(seconds, startIso);
    const form = new FormData();
    form.set("file", new Blob([bytes.slice().buffer as ArrayBuffer]), `b-${startIso}.fit`);
    form.set("data_type", "fit");
    log.length = 0; on = true;
    const res = await fetch(`${server.url}/v3/uploads`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    const body = await res.json() as { id: number };
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      const poll = await fetch(`${server.url}/v3/uploads/${body.id}`, { headers: { authorization: `Bearer ${token}` } });
      const s = await poll.json() as { status: string };
      if (s.status === UPLOAD_STATUS.ready) break;
      if (s.status !== UPLOAD_STATUS.processing) throw new Error(JSON.stringify(s));
    }
    on = false;
    const total = log.reduce((a, b) => a + b.ms, 0);
    console.log(`--- upload ${startIso}: ${log.length} tx statements, ${total.toFixed(0)} ms`);
    const agg = new Map<string, { ms: number; c: number; n: number }>();
    for (const l of log) { const k = l.sql.slice(0, 60); const a = agg.get(k) ?? { ms: 0, c: 0, n: 0 }; a.ms += l.ms; a.c++; a.n += l.n; agg.set(k, a); }
    for (const [k, a] of [...agg].sort((x, y) => y[1].ms - x[1].ms).slice(0, 30)) console.log(a.ms.toFixed(1).padStart(7), String(a.c).padStart(4), String(a.n).padStart(6), k);
  }
  // consistency: live tables vs a from-scratch rebuild
  const snap = async () => {
    const out: string[] = [];
    for (const t of ["segment_bests", "segment_period_bests", "segment_board_counts", "segments"]) {
      const rows = await platform.db.query(`select * from ${t} order by 1,2,3,4`);
      out.push(JSON.stringify(rows.map((r: any) => ({ ...r, points: undefined, created_at: undefined, updated_at: undefined })), (_k, v) => typeof v === "bigint" ? String(v) : v));
    }
    return out;
  };
  const live = await snap();
  const ids = (await platform.db.query<{ id: number }>("select id from segments")).map((r) => Number(r.id));
  try {
    await platform.db.transaction(async (tx) => {
      await rebuildBoards(tx, ids);
      const out: string[] = [];
      for (const t of ["segment_bests", "segment_period_bests", "segment_board_counts", "segments"]) {
        const rows = await tx.query(`select * from ${t} order by 1,2,3,4`);
        out.push(JSON.stringify(rows.map((r: any) => ({ ...r, points: undefined, created_at: undefined, updated_at: undefined })), (_k, v) => typeof v === "bigint" ? String(v) : v));
      }
      console.log("consistency:", out.map((o, i) => o === live[i] ? "same" : "DIFFERENT").join(" "), live.map((l) => l.length).join(" "));
      throw new Error("rollback");
    });
  } catch (e) { if ((e as Error).message !== "rollback") throw e; }
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
