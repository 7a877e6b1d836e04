import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/deno.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

/**
 * Issue #41 item 6 on PostgreSQL: a DATABASE_URL naming a database without the platform (a
 * mistyped name, a fresh database) is refused by the commands that read a store — exit 2, one line
 * naming it — and nothing is created there (no migration runs).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe("cli on a PostgreSQL database without the platform", () => {
  it("refuses backup, export, verify and replay without creating the platform's tables", async () => {
    const work = mkdtempSync(join(tmpdir(), "fitness-no-store-pg-"));
    const name = new URL(database.url).pathname.slice(1);
    for (
      const args of [
        ["backup", "--out", join(work, "x.tar.gz")],
        ["export", "--format", "ndjson", "--out", join(work, "x.ndjson")],
        ["verify"],
        ["replay"],
      ]
    ) {
      const run = await runCli(args, { DATABASE_URL: database.url });
      expect(run.code, `${args[0]}: ${run.stdout} ${run.stderr}`).toBe(2);
      expect(run.stderr.trim().split("\n")).toEqual([
        `DATABASE_URL: the database ${name} holds no platform (no event log): check the URL, or restore a backup into it`,
      ]);
    }
    expect(readdirSync(work)).toEqual([]);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select count(*)::int as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  }, 120_000);
});
