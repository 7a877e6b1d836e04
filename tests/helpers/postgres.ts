import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import type { Db } from "../../events/db/types.ts";

/** The PostgreSQL server of the postgres suites (.ci/run sets TEST_DATABASE_URL). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "";

/** A fresh, empty database on the test server; drop() removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  // CREATE DATABASE fails while another session is copying template1 at the same moment: retry.
  for (let attempt = 0;; attempt++) {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
      break;
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 500));
    } finally {
      await admin.end();
    }
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A fresh database opened through our PostgreSQL adapter for the suite that calls this (created
 * before its tests, closed and dropped after): `db()` is the open Db.
 */
export function freshPostgresDb(): { db(): Db } {
  let db: Db | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    db = await openPostgres(created.url);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  return { db: () => db! };
}
