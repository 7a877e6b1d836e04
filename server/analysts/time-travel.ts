import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { openDb } from "../../events/db/open.ts";
import type { Db } from "../../events/db/types.ts";
import { recordedAtOrBefore } from "../../events/log-queries.ts";
import { LIVE_SCHEMA, type RebuildProgress, type RebuildReport } from "../../projections/runner.ts";
import type { Platform } from "../platform.ts";

/** The target of a time travel is not usable: nothing was written. */
export class TimeTravelTargetError extends Error {}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** The table a time-travel database carries to say which point of the log it shows. */
const MARKER = `
create table if not exists public.time_travel (
  until_position bigint not null,
  until_recorded_at timestamptz,
  built_at timestamptz not null
);`;

interface Target {
  db: Db;
  describe: string;
  /** Removes what was created when the build fails. */
  discard(): Promise<void>;
}

async function openTarget(platform: Platform, into: string): Promise<Target> {
  const searchPath = `${LIVE_SCHEMA}, public`;
  if (POSTGRES_URL.test(into)) {
    if (platform.config.databaseUrl && into === platform.config.databaseUrl) {
      throw new TimeTravelTargetError("--into names the live database; time travel builds into a separate one");
    }
    const db = await openDb({ databaseUrl: into, searchPath }).catch((error: Error) => {
      throw new TimeTravelTargetError(`--into: cannot connect to the PostgreSQL database (${error.message})`);
    });
    const [row] = await db.query<{ events: string | null; rm: boolean; marker: string | null }>(
      `select to_regclass('public.events')::text as events,
              exists(select 1 from information_schema.schemata where schema_name = $1) as rm,
              to_regclass('public.time_travel')::text as marker`,
      [LIVE_SCHEMA],
    );
    if (row.events || (row.rm && !row.marker)) {
      await db.close();
      throw new TimeTravelTargetError(
        "--into: that database holds a platform (an event log or live read models); use an empty database",
      );
    }
    return { db, describe: "the PostgreSQL database given", discard: async () => {} };
  }
  const dir = resolve(into);
  if (dir === resolve(platform.config.dataDir)) {
    throw new TimeTravelTargetError("--into names the live data directory; time travel builds into a separate one");
  }
  const existed = existsSync(dir);
  if (existed && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new TimeTravelTargetError(`--into ${dir}: not an empty directory; give a new one`);
  }
  mkdirSync(dir, { recursive: true });
  const db = await openDb({ dataDir: dir, searchPath });
  return {
    db,
    describe: dir,
    async discard() {
      if (!existed) rmSync(dir, { recursive: true, force: true });
      else for (const name of readdirSync(dir)) rmSync(resolve(dir, name), { recursive: true, force: true });
    },
  };
}

export interface TimeTravelReport extends RebuildReport {
  until: number;
  untilRecordedAt: string | null;
  into: string;
}

/**
 * Builds every read model as it stood at position `until` into another database (a new PGlite
 * directory or an empty PostgreSQL database), schema `rm` like the live one; the live database
 * is only read.
 */
export async function timeTravel(
  platform: Platform,
  until: number,
  into: string,
  onProgress?: (progress: RebuildProgress) => void,
): Promise<TimeTravelReport> {
  const target = await openTarget(platform, into);
  let ok = false;
  try {
    const untilRecordedAt = await recordedAtOrBefore(platform.db, until);
    const report = await platform.projections.rebuild(LIVE_SCHEMA, { until, target: target.db, onProgress });
    await target.db.transaction(async (tx) => {
      await tx.exec(MARKER);
      await tx.exec("delete from public.time_travel");
      await tx.query(
        "insert into public.time_travel (until_position, until_recorded_at, built_at) values ($1, $2, now())",
        [until, untilRecordedAt],
      );
    });
    ok = true;
    return { ...report, until, untilRecordedAt, into: target.describe };
  } finally {
    await target.db.close();
    if (!ok) await target.discard().catch(() => {});
  }
}
