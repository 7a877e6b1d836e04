/** Rounds to `digits` decimals (the precision each derived figure is stored with). */
export const round = (n: number, digits = 1) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** A time (ms since the epoch) as ISO 8601 to the second, the way the API writes dates. */
export function iso(ms: number): string {
  return new Date(Math.round(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
