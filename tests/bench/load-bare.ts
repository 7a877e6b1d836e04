/**
 * The load benchmark's baseline: a bare Hono app on Deno with PGlite on disk answering
 * GET /activities/:id with one `select` by primary key of a row shaped like our activities (the
 * facts JSON of a real uploaded activity), and POST /activities/:id/kudos (giver in the
 * x-athlete-id header) with one `insert` in its own transaction made durable the plain way:
 * PostgreSQL runs with fsync on, and after the commit the WAL PGlite wrote is fdatasync'ed before
 * the answer, with group commit (the file layer and WAL sync of events/db, durable-fs.ts and
 * wal-sync.ts; none of our store or projections). GET /kudos/stats: the rows and the syncs.
 * Run by load.bench.ts; prints "listening on <url>".
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { PGlite } from "@electric-sql/pglite";
import { Hono } from "hono";
import { DurableNodeFS, durableStartParams } from "../../events/db/durable-fs.ts";

const rows = Number(process.env.BARE_ROWS ?? 1000);
const facts = readFileSync(process.env.BARE_FACTS!, "utf8");
const dataDir = mkdtempSync(join(tmpdir(), "fitness-bare-"));
const fs = new DurableNodeFS(dataDir);
const db = new PGlite({ dataDir, fs, startParams: durableStartParams(PGlite.defaultStartParams) });
await db.exec(`create table activities (
  id bigint primary key, athlete_id bigint not null, name text not null, type text not null,
  start_date timestamptz not null, distance double precision not null, moving_time integer not null,
  elapsed_time integer not null, private boolean not null, facts jsonb not null)`);
await db.exec(`create table kudos (
  activity_id bigint not null, athlete_id bigint not null, primary key (activity_id, athlete_id))`);
await db.query(
  `insert into activities select g, g % 50 + 1, 'Ride ' || g, 'Ride', now(), 20000, 3600, 3600, false, $1::jsonb
     from generate_series(1, $2::int) g`,
  [facts, rows],
);
await fs.wal.flush();

const app = new Hono();
app.get("/activities/:id", async (c) => {
  const { rows: found } = await db.query("select * from activities where id = $1", [Number(c.req.param("id"))]);
  if (found.length === 0) return c.json({ message: "Record Not Found" }, 404);
  return c.json(found[0]);
});
app.post("/activities/:id/kudos", async (c) => {
  // One statement outside a transaction block: its own transaction, committed when it returns.
  await db.query("insert into kudos (activity_id, athlete_id) values ($1, $2) on conflict do nothing", [
    Number(c.req.param("id")),
    Number(c.req.header("x-athlete-id")),
  ]);
  // Its WAL on disk before the answer; requests that committed meanwhile share the next sync.
  await fs.wal.flush();
  return c.json({}, 201);
});
app.get("/kudos/stats", async (c) => {
  const [{ n }] = (await db.query<{ n: number }>("select count(*)::int as n from kudos")).rows;
  return c.json({ rows: n, walSyncs: fs.wal.stats });
});
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
console.log(`bare listening on http://127.0.0.1:${server.addr.port}`);
