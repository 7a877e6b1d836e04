import type { Db } from "../../events/db/types.ts";

/**
 * Rate-limit counters shared by every server on one PostgreSQL database (issue 34): one budget per
 * application (and per athlete of an internal application) whatever server a request reaches.
 * One row per key; each request is one atomic upsert that resets a window that has passed and
 * answers the counts after it, so concurrent requests on several servers never both see the last
 * free slot. The table is UNLOGGED: no WAL and no fsync per request; a crash of PostgreSQL resets
 * the counters (they are operational state, not data). Same windows as RateLimiter (rate-limit.ts):
 * 15 minutes from :00, :15, :30, :45, and the UTC day.
 *
 * Embedded PGlite serves one process, so it keeps the in-memory RateLimiter (a write per request
 * there would cost a WAL sync).
 */
export const SHARED_RATE_LIMIT_SCHEMA = `
create unlogged table if not exists public.rate_limit_usage (
  key text primary key,
  short_window bigint not null,
  short_count integer not null,
  day bigint not null,
  day_count integer not null
);`;

const QUARTER = 15 * 60 * 1000;
const DAY = 24 * 60 * 60 * 1000;

export class SharedRateLimiter {
  #ready: Promise<void> | undefined;

  constructor(readonly db: Db, readonly shortLimit: number, readonly longLimit: number) {}

  #ensure(): Promise<void> {
    if (!this.#ready) {
      this.#ready = this.db.transaction(async (tx) => {
        // Servers starting together: one creates the table at a time.
        await tx.query("select pg_advisory_xact_lock(724313)");
        await tx.exec(SHARED_RATE_LIMIT_SCHEMA);
      });
      this.#ready.catch(() => (this.#ready = undefined));
    }
    return this.#ready;
  }

  /** Counts one request; the usage after it (across all servers) and whether it is allowed. */
  async hit(key: string, now = Date.now()): Promise<{ allowed: boolean; short: number; long: number }> {
    await this.#ensure();
    const [row] = await this.db.query<{ short_count: number; day_count: number }>(
      `insert into public.rate_limit_usage as u (key, short_window, short_count, day, day_count)
       values ($1, $2, 1, $3, 1)
       on conflict (key) do update set
         short_count = case when u.short_window = excluded.short_window then u.short_count + 1 else 1 end,
         short_window = excluded.short_window,
         day_count = case when u.day = excluded.day then u.day_count + 1 else 1 end,
         day = excluded.day
       returning short_count, day_count`,
      [key, Math.floor(now / QUARTER), Math.floor(now / DAY)],
    );
    const short = Number(row.short_count);
    const long = Number(row.day_count);
    return { allowed: short <= this.shortLimit && long <= this.longLimit, short, long };
  }
}
