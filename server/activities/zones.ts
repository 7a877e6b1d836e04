import type { ActivityStreams } from "../../shared/streams.ts";
import {
  DEFAULT_POWER_BOUNDS,
  HEARTRATE_POINTS_PER_MINUTE,
  HEARTRATE_ZONE_FRACTIONS,
  maxHeartrate,
  POWER_ZONE_FRACTIONS,
} from "../athletes/zones.ts";
import type { Dialect } from "../http/dialect.ts";

/**
 * Activity zones (spec, Activity zones): time in each heartrate and power bucket, computed from
 * the streams. Only moving samples count; each sample carries the time since the previous one.
 * A heart rate of 0 in the stream is no reading (a gap longer than a reading is held) and counts nowhere.
 */
function buckets(
  bounds: number[],
  values: (number | null)[] | undefined,
  streams: ActivityStreams,
  noReading?: number,
) {
  const result = bounds.map((min, i) => ({ min, max: i + 1 < bounds.length ? bounds[i + 1] : -1, time: 0 }));
  if (!values) return result;
  for (let i = 1; i < streams.time.length; i++) {
    const v = values[i];
    if (v === null || v === undefined || v === noReading || streams.moving[i] === false) continue;
    const dt = streams.time[i] - streams.time[i - 1];
    if (!(dt > 0)) continue;
    let b = result.length - 1;
    while (b > 0 && v < result[b].min) b--;
    result[b].time += dt;
  }
  return result;
}

export function activityZones(
  streams: ActivityStreams | null,
  athlete: { birthdate: string | null; ftp: number | null },
  activity: { startDate: string; deviceWatts: boolean | null },
  dialect: Dialect,
) {
  const zones: Record<string, unknown>[] = [];
  if (!streams) return zones;
  if (streams.heartrate?.some((v) => v !== null)) {
    const max = maxHeartrate(athlete.birthdate, activity.startDate);
    const bounds = HEARTRATE_ZONE_FRACTIONS.map((f) => Math.round(f * max));
    // A heart rate of 0 is no reading (docs/numbers.md, Streams): no time in any zone.
    const distribution = buckets(bounds, streams.heartrate, streams, 0);
    const points = Math.round(
      distribution.reduce((sum, b, i) => sum + (b.time / 60) * HEARTRATE_POINTS_PER_MINUTE[i], 0),
    );
    zones.push({
      score: points,
      distribution_buckets: distribution,
      type: "heartrate",
      resource_state: 3,
      sensor_based: true,
      points,
      custom_zones: false,
      max,
    });
  }
  if (streams.watts?.some((v) => v !== null)) {
    const bounds = athlete.ftp ? POWER_ZONE_FRACTIONS.map((f) => Math.round(f * athlete.ftp!)) : DEFAULT_POWER_BOUNDS;
    zones.push({
      distribution_buckets: buckets(bounds, streams.watts, streams),
      type: "power",
      resource_state: 3,
      sensor_based: activity.deviceWatts ?? true,
      // Strava's ActivityZone carries custom_zones on power zones too (bounds from the athlete's FTP or
      // the fixed buckets, never set by hand); the spec has it on heart-rate zones only.
      ...(dialect === "strava" ? { custom_zones: false } : {}),
    });
  }
  return zones;
}
