import { activityDecider } from "../../events/activity/decide.ts";
import { activityStream } from "../../events/activity/events.ts";
import { handleCommand, handleCommands } from "../../events/decider.ts";
import type { EventData } from "../../events/catalogue.ts";
import { type CutFacts, segmentCreationDecider } from "../../events/segment/create.ts";
import { starDecider } from "../../events/segment/decide.ts";
import { type segmentProfileMeasured, segmentStarStream, segmentStream } from "../../events/segment/events.ts";
import { profileDecider } from "../../events/segment/profile.ts";
import { findActivity } from "../../projections/activities/queries.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { type NewSegment, segmentCreatedData } from "./create.ts";
import { sourceActivityEfforts } from "./source-efforts.ts";

/**
 * Records a new segment with its derived facts through the segment creation decider (events/segment/create.ts),
 * which refuses a bad name or geometry and, for a segment cut from an activity (`cut`, the privacy
 * engine's findings from pointsFromActivity), a public segment of a private activity or a stretch
 * inside the owner's zones. Returns its id.
 */
export async function createSegment(
  platform: Platform,
  s: NewSegment,
  actor: Actor,
  cut: CutFacts | null = null,
): Promise<number> {
  const segmentId = await nextId(platform.db, "segment");
  await handleCommand(platform.store, segmentStream(segmentId), segmentCreationDecider, {
    type: "create",
    segment: segmentCreatedData(segmentId, s),
    cut,
  }, appendOptions(actor));
  // Cut from an activity: that activity's own efforts over the new segment are recorded at once.
  if (s.activityId !== null) {
    const activity = await findActivity(platform.db, s.activityId);
    if (activity) {
      await matchSourceActivity(platform, { id: segmentId, activityType: s.activityType, points: s.points }, {
        id: activity.id,
        type: activity.type,
        visibility: activity.visibility,
        streamsSha256: activity.facts.streamsSha256 ?? null,
      });
    }
  }
  return segmentId;
}

/**
 * Matches a new segment against the activity it was cut from and records the activity's efforts
 * with the new ones (SegmentEffortsRematched, for the activity's owner, source "segment-created").
 * Returns how many efforts were added (0: nothing appended).
 */
export async function matchSourceActivity(
  platform: Platform,
  segment: Parameters<typeof sourceActivityEfforts>[1],
  activity: Parameters<typeof sourceActivityEfforts>[2],
): Promise<number> {
  const found = await sourceActivityEfforts(platform, segment, activity);
  if (!found) return 0;
  await handleCommand(platform.store, activityStream(activity.id), activityDecider, {
    type: "matchSegment",
    activityId: activity.id,
    efforts: found.efforts,
  }, appendOptions(systemActor("segment-created", found.athleteId)));
  return found.added;
}

/** Stars (or unstars) a segment for an athlete; starring twice records nothing. */
export async function starSegment(
  platform: Platform,
  athleteId: number,
  segmentId: number,
  starred: boolean,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, segmentStarStream(athleteId, segmentId), starDecider, {
    type: "star",
    starred,
    athleteId,
    segmentId,
  }, appendOptions(actor));
}

/**
 * Records measured altitude profiles (SegmentProfileMeasured), one command per segment stream, all
 * at once: their appends share WAL syncs (group commit) instead of one sync after another (a first
 * ride over 200 unmeasured segments took 2–5 s). The decider keeps it to one measurement per source.
 */
export async function measureSegmentProfiles(
  platform: Platform,
  measurements: readonly EventData<typeof segmentProfileMeasured>[],
  actor: Actor,
): Promise<void> {
  // One read, one append and one commit for every segment the activity measures (was each its own).
  await handleCommands(
    platform.store,
    profileDecider,
    measurements.map((measurement) => ({
      streamId: segmentStream(measurement.segmentId),
      command: { type: "measure-profile" as const, measurement },
    })),
    appendOptions(actor),
  );
}
