import type { Platform } from "../platform.ts";

/**
 * Sign-in throttling per account (the e-mail, case-insensitive), in memory: after FREE_FAILURES
 * consecutive wrong passwords every further attempt must wait, 30 s doubling per failure up to
 * 15 minutes; during the wait even the right password is refused without being checked. A
 * successful sign-in clears the count.
 */
export const FREE_FAILURES = 5;
const BASE_DELAY_MS = 30_000;
const MAX_DELAY_MS = 15 * 60_000;

interface Failures {
  count: number;
  lockedUntil: number;
}

export class SignInThrottle {
  readonly #failures = new Map<string, Failures>();

  /** Milliseconds to wait before this account may try again (0 = may try now). */
  waitFor(email: string, now = Date.now()): number {
    const entry = this.#failures.get(email.trim().toLowerCase());
    return entry ? Math.max(0, entry.lockedUntil - now) : 0;
  }

  failed(email: string, now = Date.now()): void {
    const key = email.trim().toLowerCase();
    const entry = this.#failures.get(key) ?? { count: 0, lockedUntil: 0 };
    entry.count++;
    if (entry.count >= FREE_FAILURES) {
      entry.lockedUntil = now + Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (entry.count - FREE_FAILURES));
    }
    this.#failures.delete(key);
    this.#failures.set(key, entry);
    if (this.#failures.size > 100_000) {
      const oldest = this.#failures.keys().next().value;
      if (oldest !== undefined) this.#failures.delete(oldest);
    }
  }

  succeeded(email: string): void {
    this.#failures.delete(email.trim().toLowerCase());
  }
}

const throttles = new WeakMap<Platform, SignInThrottle>();

export function signInThrottle(platform: Platform): SignInThrottle {
  let throttle = throttles.get(platform);
  if (!throttle) {
    throttle = new SignInThrottle();
    throttles.set(platform, throttle);
  }
  return throttle;
}
