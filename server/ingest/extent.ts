/**
 * Largest and smallest of a series without spreading it into Math.max/Math.min (a spread passes
 * every element as an argument and overflows the call stack on a long recording).
 */
export function maxOf(values: ArrayLike<number>, initial = -Infinity): number {
  let max = initial;
  for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
  return max;
}

export function minOf(values: ArrayLike<number>, initial = Infinity): number {
  let min = initial;
  for (let i = 0; i < values.length; i++) if (values[i] < min) min = values[i];
  return min;
}
