/**
 * Request limits per key (an application; for this server's own applications, an athlete within
 * it, so one busy athlete of the web pages never locks the others out): a short window (15 minutes,
 * resetting at :00, :15, :30, :45) and a daily one (resetting at midnight UTC). Requests refused for the short limit still count toward
 * the daily one. This class keeps them in this process's memory (embedded store);
 * on PostgreSQL every server counts in the database instead (shared-rate-limit.ts).
 */
export class RateLimiter {
  readonly #usage = new Map<string, { shortWindow: number; short: number; day: number; long: number }>();

  constructor(readonly shortLimit: number, readonly longLimit: number) {}

  /** Counts one request; returns the usage after it and whether it is allowed. */
  hit(key: string, now = Date.now()): { allowed: boolean; short: number; long: number } {
    const shortWindow = Math.floor(now / (15 * 60 * 1000));
    const day = Math.floor(now / (24 * 60 * 60 * 1000));
    let entry = this.#usage.get(key);
    if (!entry) {
      entry = { shortWindow, short: 0, day, long: 0 };
      this.#usage.set(key, entry);
    }
    if (entry.shortWindow !== shortWindow) {
      entry.shortWindow = shortWindow;
      entry.short = 0;
    }
    if (entry.day !== day) {
      entry.day = day;
      entry.long = 0;
    }
    entry.short++;
    entry.long++;
    const allowed = entry.short <= this.shortLimit && entry.long <= this.longLimit;
    return { allowed, short: entry.short, long: entry.long };
  }

  /** Current usage without counting. */
  peek(key: string, now = Date.now()): { short: number; long: number } {
    const entry = this.#usage.get(key);
    if (!entry) return { short: 0, long: 0 };
    const shortWindow = Math.floor(now / (15 * 60 * 1000));
    const day = Math.floor(now / (24 * 60 * 60 * 1000));
    return {
      short: entry.shortWindow === shortWindow ? entry.short : 0,
      long: entry.day === day ? entry.long : 0,
    };
  }
}

/** What the API's conventions count requests with: RateLimiter (one process) or SharedRateLimiter (PostgreSQL). */
export interface RequestLimiter {
  readonly shortLimit: number;
  readonly longLimit: number;
  hit(
    key: string,
    now?: number,
  ): { allowed: boolean; short: number; long: number } | Promise<{ allowed: boolean; short: number; long: number }>;
}

/**
 * Seconds until a refused request may be tried again: the end of the 15-minute window when the
 * short limit is exceeded, midnight UTC when the daily one is (the later of the two when both are).
 */
export function retryAfterSeconds(
  limiter: { shortLimit: number; longLimit: number },
  usage: { short: number; long: number },
  now = Date.now(),
): number {
  const QUARTER = 15 * 60 * 1000, DAY = 24 * 60 * 60 * 1000;
  let until = now;
  if (usage.short > limiter.shortLimit) until = Math.max(until, (Math.floor(now / QUARTER) + 1) * QUARTER);
  if (usage.long > limiter.longLimit) until = Math.max(until, (Math.floor(now / DAY) + 1) * DAY);
  return Math.max(1, Math.ceil((until - now) / 1000));
}
