import type { EventData } from "../../events/catalogue.ts";
import type { Visibility } from "../../shared/visibility.ts";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { findEvent } from "../../events/index.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { loadStreams } from "../activities/streams.ts";
import type { Platform } from "../platform.ts";
import { effortIdFor, EFFORTS_PER_ACTIVITY, matchActivity } from "./efforts.ts";
import type { LatLng } from "./geometry.ts";
import { SegmentIndex } from "./matching.ts";
import { trackMatches } from "./track-matches.ts";

type Matched = EventData<typeof segmentEffortsMatched>;

/** What a new segment adds to the activity it was cut from: the activity's efforts, old and new. */
export interface SourceEfforts {
  /** The activity's owner, for whom the efforts are recorded. */
  athleteId: number;
  efforts: Matched;
  /** How many of `efforts.efforts` are new. */
  added: number;
}

/**
 * A segment cut from an activity is matched against that activity at once: its efforts over the new
 * segment (ranked against the segment's boards, empty or not) join the activity's efforts, to be
 * recorded through the activity's decider as SegmentEffortsRematched (the activity's efforts, earlier
 * ones unchanged, plus the new ones on free effort slots), so a replay of the events gives the same
 * efforts. Null (nothing to record) when the activity is gone, has no track or does not follow the
 * segment.
 */
export async function sourceActivityEfforts(
  platform: Platform,
  segment: { id: number; activityType: string; points: LatLng[] },
  activity: { id: number; type: string; visibility: Visibility; streamsSha256: string | null },
): Promise<SourceEfforts | null> {
  const events = await platform.store.readStream(activityStream(activity.id));
  const recorded = findEvent(events, activityRecorded.type)?.data;
  if (!recorded) return null;
  const before: Matched | null =
    findEvent(events, [segmentEffortsMatched.type, segmentEffortsRematched.type], true)?.data ?? null;
  const streams = await loadStreams(platform.db, activity.streamsSha256) as ActivityStreams | null;
  if (!streams?.latlng) return null;
  const index = new SegmentIndex();
  index.add([{ id: segment.id, activityType: segment.activityType, points: segment.points }]);
  const found = trackMatches(index, activity.type, streams);
  if (found.length === 0) return null;
  const current = { ...recorded, type: activity.type as typeof recorded.type, visibility: activity.visibility };
  const fresh = await matchActivity(platform.db, current, streams, new Date(), found);
  if (fresh.efforts.length === 0) return null;
  const kept = before?.efforts ?? [];
  const used = new Set(kept.map((e) => e.effortId));
  let slot = kept.length;
  const added = [];
  for (const e of fresh.efforts) {
    let effortId: string | null = null;
    while (slot < EFFORTS_PER_ACTIVITY) {
      const candidate = effortIdFor(activity.id, slot++);
      if (!used.has(candidate)) {
        effortId = candidate;
        break;
      }
    }
    if (effortId === null) break;
    used.add(effortId);
    added.push({ ...e, effortId });
  }
  if (added.length === 0) return null;
  const efforts = [...kept, ...added];
  const data = segmentEffortsRematched.schema.parse({
    activityId: activity.id,
    athleteId: recorded.athleteId,
    activityType: activity.type,
    visibility: activity.visibility,
    efforts,
    prCount: efforts.filter((e) => e.prRank === 1).length,
    achievementCount: efforts.reduce((n, e) => n + e.achievements.length, 0),
  });
  return { athleteId: recorded.athleteId, efforts: data, added: added.length };
}
