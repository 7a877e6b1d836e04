import type { EventData } from "../../events/catalogue.ts";
import { activityDecider } from "../../events/activity/decide.ts";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { handleCommand } from "../../events/decider.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { loadStreams } from "../activities/streams.ts";
import type { Platform } from "../platform.ts";
import { effortIdFor, EFFORTS_PER_ACTIVITY, matchActivity } from "./efforts.ts";
import type { LatLng } from "./geometry.ts";
import { SegmentIndex } from "./matching.ts";
import { trackMatches } from "./track-matches.ts";

type Matched = EventData<typeof segmentEffortsMatched>;

/**
 * A segment cut from an activity is matched against that activity at once: its efforts over the new
 * segment (ranked against the segment's boards, empty or not) join the activity's efforts, recorded
 * through the activity's decider as SegmentEffortsRematched (the activity's efforts, earlier ones
 * unchanged, plus the new ones on free effort slots), so a replay of the events gives the same
 * efforts. Nothing is appended when the activity is gone, has no track or does not follow the segment.
 * Returns how many efforts were added.
 */
export async function matchSourceActivity(
  platform: Platform,
  segment: { id: number; activityType: string; points: LatLng[] },
  activity: { id: number; type: string; private: boolean; streamsSha256: string | null },
): Promise<number> {
  const events = await platform.store.readStream(activityStream(activity.id));
  const recorded = events.find((e) => e.type === activityRecorded.type)?.data as EventData<typeof activityRecorded> | undefined;
  if (!recorded) return 0;
  let before: Matched | null = null;
  for (const e of events) {
    if (e.type === segmentEffortsMatched.type || e.type === segmentEffortsRematched.type) before = e.data as Matched;
  }
  const streams = await loadStreams(platform.db, activity.streamsSha256) as ActivityStreams | null;
  if (!streams?.latlng) return 0;
  const index = new SegmentIndex();
  index.add([{ id: segment.id, activityType: segment.activityType, points: segment.points }]);
  const found = trackMatches(index, activity.type, streams);
  if (found.length === 0) return 0;
  const current = { ...recorded, type: activity.type as typeof recorded.type, private: activity.private };
  const fresh = await matchActivity(platform.db, current, streams, new Date(), found);
  if (fresh.efforts.length === 0) return 0;
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
  if (added.length === 0) return 0;
  const efforts = [...kept, ...added];
  const data = segmentEffortsRematched.schema.parse({
    activityId: activity.id,
    athleteId: recorded.athleteId,
    activityType: activity.type,
    private: activity.private,
    efforts,
    prCount: efforts.filter((e) => e.prRank === 1).length,
    achievementCount: efforts.reduce((n, e) => n + e.achievements.length, 0),
  });
  await handleCommand(platform.store, activityStream(activity.id), activityDecider, {
    type: "matchSegment", activityId: activity.id, efforts: data,
  }, { metadata: { athleteId: recorded.athleteId, source: "segment-created" } });
  return added.length;
}
