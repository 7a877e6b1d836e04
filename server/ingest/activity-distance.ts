import type { ActivityType } from "../../shared/activity-types.ts";
import { distanceStream, endAt, scaleTo } from "./distance.ts";
import type { ActivitySpan } from "./span.ts";
import type { DeviceLength, ParsedFile, Sample } from "./types.ts";

/** A pool swim: its pool length and active lengths (its distance, moving time and max speed come from them). */
export interface PoolSwim {
  poolLength: number;
  active: DeviceLength[];
}

/** The activity's distance: the stream, whether it measures movement, and the total. */
export interface ActivityDistance {
  /** Cumulative distance (m), one value per sample. */
  cum: Float64Array;
  /** Whether the stream measures movement (it advances at all). */
  measured: boolean;
  totalDistance: number;
  /** Set for a single-sport pool swim with active lengths. */
  pool: PoolSwim | null;
}

/** The distance stream, made to end at the activity's distance where the device says it, and the total. */
export function activityDistance(parsed: ParsedFile, type: ActivityType, span: ActivitySpan): ActivityDistance {
  const samples = parsed.samples;
  const n = samples.length;
  const multisport = (parsed.sessions?.length ?? 0) > 1;
  const segmentStarts = parsed.segmentStarts;
  const fitDistance = parsed.format === "fit" && !segmentStarts?.length;
  const cum = distanceStream(samples, segmentStarts, { startAt: span.startAt, holdAfterDevice: fitDistance });
  let lastReading = -1;
  for (let i = n - 1; i >= 0 && fitDistance; i--) {
    if (samples[i].distance !== null) {
      lastReading = i;
      break;
    }
  }
  let measured = cum[n - 1] > cum[0];
  const swimSession = (parsed.sessions ?? []).find((s) => s.poolLength !== null && s.poolLength > 0);
  const activeLengths = (parsed.lengths ?? []).filter((l) => l.active);
  const poolSwim = !multisport && type === "Swim" && swimSession !== undefined && activeLengths.length > 0;
  let totalDistance: number;
  if (poolSwim) {
    totalDistance = activeLengths.length * (swimSession!.poolLength as number);
    // The distance stream of a pool swim comes from its lengths (a record may carry no distance).
    poolDistanceStream(samples, activeLengths, swimSession!.poolLength as number, cum);
  } else if (parsed.format === "fit" && parsed.deviceTotals.distance) totalDistance = parsed.deviceTotals.distance;
  else totalDistance = cum[n - 1] + span.unrecordedDistance;
  if (poolSwim) measured = cum[n - 1] > cum[0];
  else if (measured && parsed.format === "fit" && totalDistance > 0) {
    // The device's own readings stand; its total ends the stream (not a rescaled GPS top-up).
    if (lastReading >= 0) endAt(cum, span.times, totalDistance, lastReading);
    else scaleTo(cum, totalDistance);
  }
  const pool = poolSwim ? { poolLength: swimSession!.poolLength as number, active: activeLengths } : null;
  return { cum, measured, totalDistance, pool };
}

/**
 * A pool swim's distance stream from its active lengths: at the end of the k-th active length the
 * swimmer has covered k pool lengths; within a length distance grows linearly with time; rests add
 * nothing.
 */
function poolDistanceStream(
  samples: readonly Sample[],
  active: readonly DeviceLength[],
  poolLength: number,
  cum: Float64Array,
): void {
  let k = 0;
  for (let i = 0; i < samples.length; i++) {
    const t = samples[i].time;
    while (k < active.length && active[k].startTime + active[k].elapsedTime * 1000 <= t) k++;
    let value = k * poolLength;
    if (k < active.length && active[k].startTime < t) {
      value += poolLength * Math.min(1, (t - active[k].startTime) / (active[k].elapsedTime * 1000));
    }
    cum[i] = value;
  }
}
