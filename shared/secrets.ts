import { timingSafeEqual } from "node:crypto";

/** String equality in constant time (for equal lengths; unequal lengths return false after the same work). */
export function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}
