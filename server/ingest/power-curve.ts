import type { ActivityStreams } from "../../shared/streams.ts";

/**
 * An activity's power curve: the highest mean power over each of POWER_DURATIONS, derived once
 * with the activity's other facts (ActivityRecorded, ActivityReprocessed: `powerCurve`) so the
 * athlete's records never read streams again (projections/records).
 */

/** Power-curve durations in seconds. */
export const POWER_DURATIONS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600] as const;
/** A gap between samples longer than this counts as 0 W (as the streams' own long gaps). */
const MAX_HOLD_SECONDS = 5;

/**
 * Highest mean power over each duration: the watts resampled to one value per second of elapsed
 * time (a sample holds until the next one, up to MAX_HOLD_SECONDS; longer gaps are 0 W), then a
 * sliding window over prefix sums. A duration longer than the activity has no value (null).
 */
export function powerCurve(
  streams: Pick<ActivityStreams, "time" | "watts">,
  durations: readonly number[] = POWER_DURATIONS,
): (number | null)[] {
  const { time, watts } = streams;
  if (!watts || time.length < 2) return durations.map(() => null);
  const t0 = time[0], span = Math.floor(time[time.length - 1] - t0);
  if (!(span > 0)) return durations.map(() => null);
  const perSecond = new Float64Array(span);
  for (let i = 0; i + 1 < time.length; i++) {
    const from = Math.floor(time[i] - t0), to = Math.min(span, Math.floor(time[i + 1] - t0));
    const w = Number(watts[i]) || 0;
    for (let s = from; s < to; s++) perSecond[s] = s - from < MAX_HOLD_SECONDS ? w : 0;
  }
  const prefix = new Float64Array(span + 1);
  for (let s = 0; s < span; s++) prefix[s + 1] = prefix[s] + perSecond[s];
  return durations.map((d) => {
    if (d > span) return null;
    let best = 0;
    for (let s = d; s <= span; s++) best = Math.max(best, prefix[s] - prefix[s - d]);
    return Math.round(best / d);
  });
}

/**
 * The facts' form of the curve: one `{duration, watts}` per duration the activity reaches with
 * some power (above 0 W); null when the activity has no power stream.
 */
export function powerCurveFacts(
  streams: Pick<ActivityStreams, "time" | "watts">,
): { duration: number; watts: number }[] | null {
  if (!streams.watts) return null;
  const curve = powerCurve(streams);
  return POWER_DURATIONS.flatMap((duration, i) => {
    const watts = curve[i];
    return watts !== null && watts > 0 ? [{ duration, watts }] : [];
  });
}
