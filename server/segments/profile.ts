import type { EventData } from "../../events/catalogue.ts";
import { findEvent } from "../../events/index.ts";
import { activityStream } from "../../events/activity/events.ts";
import {
  segmentEffortsMatched,
  segmentEffortsRematched,
  type segmentProfileMeasured,
} from "../../events/segment/events.ts";
import { segmentsToMeasure } from "../../projections/segments/queries.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import type { RecordedActivity } from "./processors.ts";
import { systemActor } from "../actor.ts";
import { loadRelease, PUBLIC, publicStretch } from "../privacy/engine.ts";
import { measureSegmentProfiles } from "./commands.ts";
import { elevationFacts, haversine, type LatLng } from "./geometry.ts";

type Measurement = EventData<typeof segmentProfileMeasured>;

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The altitude profile of an effort: its points that carry an altitude, as [metres from the
 * effort's first point, altitude]. Distance along is the activity's distance stream (or, without
 * one, the haversine sum of its positions). Null when fewer than two points carry an altitude or
 * the effort does not move.
 */
export function effortProfile(
  streams: ActivityStreams,
  startIndex: number,
  endIndex: number,
): [number, number][] | null {
  const altitude = streams.altitude;
  if (!altitude) return null;
  const along: number[] = [];
  let d = 0;
  let last: LatLng | null = null;
  for (let k = startIndex; k <= endIndex; k++) {
    const p = streams.latlng?.[k] ?? null;
    if (p && last) d += haversine(last, p);
    if (p) last = p;
    along.push(streams.distance?.[k] ?? d);
  }
  const profile: [number, number][] = [];
  for (let k = startIndex; k <= endIndex; k++) {
    const a = altitude[k];
    if (typeof a !== "number" || !Number.isFinite(a)) continue;
    profile.push([round1(along[k - startIndex] - along[0]), a]);
  }
  if (profile.length < 2 || !(profile[profile.length - 1][0] > profile[0][0])) return null;
  return profile;
}

/** The measurement of a segment `distance` metres long from an effort's profile. */
export function measurement(
  segment: { segmentId: number; distance: number },
  effort: { activityId: number; effortId: string; source: Measurement["source"]; profile: [number, number][] },
): Measurement {
  const facts = elevationFacts(effort.profile.map((p) => p[0]), effort.profile.map((p) => p[1]), segment.distance);
  return {
    segmentId: segment.segmentId,
    activityId: effort.activityId,
    effortId: effort.effortId,
    source: effort.source,
    profile: effort.profile,
    averageGrade: facts.averageGrade,
    maximumGrade: facts.maximumGrade,
    elevationHigh: facts.elevationHigh!,
    elevationLow: facts.elevationLow!,
    totalElevationGain: facts.totalElevationGain,
    climbCategory: facts.climbCategory,
  };
}

/**
 * The activity processor that measures segments created without altitudes (issue #22): for each
 * segment this activity's efforts ride whose elevation is still unknown (or only measured from GPS
 * altitudes, when this activity's altitudes are barometric), the first effort's altitude profile
 * is recorded as SegmentProfileMeasured on the segment's stream. Only activities everyone may see with an
 * altitude stream are measured from. The decider (events/segment/profile.ts) keeps it to one
 * measurement per source, so a retried upload records nothing twice. Its events go to segment
 * streams, so it returns none for the activity's stream.
 */
export async function segmentProfileProcessor(recorded: RecordedActivity) {
  const { platform, activity, streams } = recorded;
  if (activity.visibility !== "everyone" || !streams) return [];
  const types = [segmentEffortsMatched.type, segmentEffortsRematched.type] as const;
  // The efforts the processor before this one just appended; after a restart, the stream's (a read
  // of the whole stream includes the ride's large ActivityRecorded: tens of ms on the event loop).
  const matched = findEvent(recorded.appended ?? [], types, true) ??
    findEvent(await platform.store.readStream(activityStream(activity.activityId)), types, true);
  if (!matched) return [];
  const efforts = matched.data.efforts;
  if (efforts.length === 0) return [];
  const source: Measurement["source"] = activity.barometric ? "barometric" : "gps";
  const wanted = await segmentsToMeasure(platform.db, [...new Set(efforts.map((e) => e.segmentId))], source);
  // Only now are the streams read: reading one unpacks it (derive-pool.ts), 163,000 points of a
  // long ride on the event loop, for nothing when no segment wants measuring (the usual case).
  if (wanted.length === 0 || !streams.altitude || !streams.latlng) return [];
  const latlng = streams.latlng;
  // A measurement copies the effort's stretch into a public segment: the privacy engine's rule for
  // copying a stretch (public activity, no point inside the owner's zones) applies.
  const release = await loadRelease(
    platform.db,
    { athlete_id: activity.athleteId, visibility: activity.visibility },
    PUBLIC,
  );
  const measurements: Measurement[] = [];
  for (const segment of wanted) {
    const segmentId = Number(segment.id);
    for (const effort of efforts.filter((e) => e.segmentId === segmentId)) {
      if (!publicStretch(release, latlng, effort.startIndex, effort.endIndex).ok) continue;
      const profile = effortProfile(streams, effort.startIndex, effort.endIndex);
      if (!profile) continue;
      measurements.push(measurement({ segmentId, distance: Number(segment.distance) }, {
        activityId: activity.activityId,
        effortId: effort.effortId,
        source,
        profile,
      }));
      break;
    }
  }
  await measureSegmentProfiles(platform, measurements, systemActor("job:upload", activity.athleteId));
  return [];
}
