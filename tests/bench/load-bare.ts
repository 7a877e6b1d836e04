/**
 * The load benchmark's baseline: a bare Hono app on Deno with PGlite on disk answering
 * GET /activities/:id with one `select` by primary key of a row shaped like our activities (the
 * facts JSON of a real uploaded activity). Run by load.bench.ts; prints "listening on <url>".
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { PGlite } from "@electric-sql/pglite";
import { Hono } from "hono";

const rows = Number(process.env.BARE_ROWS ?? 1000);
const facts = readFileSync(process.env.BARE_FACTS!, "utf8");
const db = new PGlite(mkdtempSync(join(tmpdir(), "fitness-bare-")));
await db.exec(`create table activities (
  id bigint primary key, athlete_id bigint not null, name text not null, type text not null,
  start_date timestamptz not null, distance double precision not null, moving_time integer not null,
  elapsed_time integer not null, private boolean not null, facts jsonb not null)`);
await db.query(
  `insert into activities select g, g % 50 + 1, 'Ride ' || g, 'Ride', now(), 20000, 3600, 3600, false, $1::jsonb
     from generate_series(1, $2::int) g`,
  [facts, rows],
);

const app = new Hono();
app.get("/activities/:id", async (c) => {
  const { rows: found } = await db.query("select * from activities where id = $1", [Number(c.req.param("id"))]);
  if (found.length === 0) return c.json({ message: "Record Not Found" }, 404);
  return c.json(found[0]);
});
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
console.log(`bare listening on http://127.0.0.1:${server.addr.port}`);
