import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { Platform } from "../platform.ts";

/**
 * Sign-in throttling that slows a password guesser without letting anyone lock an athlete out:
 * - per client address and account (the e-mail, case-insensitive): after FREE_FAILURES wrong
 *   passwords in a row, each further attempt from that address for that account must wait
 *   BASE_DELAY_MS, doubling per failure, up to MAX_DELAY_MS; during the wait the attempt is refused
 *   (429, Retry-After) without the password being checked. The same account from any other
 *   address is not affected, so the owner still signs in while someone guesses elsewhere.
 * - per client address, all accounts together (one address spraying many accounts): the same
 *   back-off after FREE_FAILURES_PER_ADDRESS failures.
 * A successful sign-in clears its address+account count (not the address's). Counts are forgotten
 * FORGET_MS after their last failure. The counters live in this process's memory, bounded.
 */
export const FREE_FAILURES = 5;
export const FREE_FAILURES_PER_ADDRESS = 50;
export const BASE_DELAY_MS = 30_000;
export const MAX_DELAY_MS = 15 * 60_000;
const FORGET_MS = 24 * 60 * 60_000;
const MAX_ENTRIES = 100_000;

interface Failures {
  count: number;
  waitUntil: number;
  last: number;
}

function delayAfter(count: number, free: number): number {
  return count < free ? 0 : Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(30, count - free));
}

export class SignInThrottle {
  readonly #failures = new Map<string, Failures>();

  #entry(key: string, now: number): Failures | undefined {
    const entry = this.#failures.get(key);
    if (entry && now - entry.last > FORGET_MS) {
      this.#failures.delete(key);
      return undefined;
    }
    return entry;
  }

  #fail(key: string, free: number, now: number): void {
    const entry = this.#entry(key, now) ?? { count: 0, waitUntil: 0, last: now };
    entry.count++;
    entry.last = now;
    entry.waitUntil = now + delayAfter(entry.count, free);
    this.#failures.delete(key);
    this.#failures.set(key, entry);
    while (this.#failures.size > MAX_ENTRIES) this.#failures.delete(this.#failures.keys().next().value!);
  }

  /** Milliseconds this address must wait before trying this account again (0 = may try now). */
  waitFor(address: string, email: string, now = Date.now()): number {
    const pair = this.#entry(pairKey(address, email), now);
    const all = this.#entry(addressKey(address), now);
    return Math.max(0, (pair?.waitUntil ?? 0) - now, (all?.waitUntil ?? 0) - now);
  }

  failed(address: string, email: string, now = Date.now()): void {
    this.#fail(pairKey(address, email), FREE_FAILURES, now);
    this.#fail(addressKey(address), FREE_FAILURES_PER_ADDRESS, now);
  }

  succeeded(address: string, email: string): void {
    this.#failures.delete(pairKey(address, email));
  }
}

/**
 * Keys hold the e-mail's sha-256, not the e-mail: a client chooses the e-mail (any length), and the
 * table keeps up to MAX_ENTRIES keys, so its memory must not grow with what clients send.
 */
const pairKey = (address: string, email: string) =>
  `${address}\n${createHash("sha256").update(email.trim().toLowerCase()).digest("base64")}`;
const addressKey = (address: string) => `${address}\n*`;

const throttles = new WeakMap<Platform, SignInThrottle>();

export function signInThrottle(platform: Platform): SignInThrottle {
  let throttle = throttles.get(platform);
  if (!throttle) {
    throttle = new SignInThrottle();
    throttles.set(platform, throttle);
  }
  return throttle;
}

/**
 * The address of the connection's peer (Deno.serve's info, or Node's socket). Forwarded-for
 * headers are not read: a client can write anything there.
 */
export function clientAddress(c: Context): string {
  // deno-lint-ignore no-explicit-any
  const env = c.env as any;
  const address = env?.remoteAddr?.hostname ?? env?.incoming?.socket?.remoteAddress;
  return typeof address === "string" && address ? address : "unknown";
}
