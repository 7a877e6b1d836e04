import { z } from "zod";
import { defineEvent, type EventOf, type Upcaster } from "../catalogue.ts";
import { VISIBILITIES, visibilityOfPrivate } from "../../shared/visibility.ts";

/**
 * Segments: created by operators (CLI) or athletes (from their own activity); starred by athletes;
 * efforts matched while an upload is processed (appended to the activity's stream).
 */

const latlng = z.tuple([z.number(), z.number()]);

/** 64-bit effort ids are carried as decimal digits so they stay exact in JSON everywhere. */
export const effortId = z.string().regex(/^[1-9]\d{0,18}$/);

export const segmentCreated = defineEvent({
  type: "SegmentCreated",
  description: "A segment was laid out; its geometry and every derived fact are recorded here.",
  schema: z.object({
    segmentId: z.number().int().positive(),
    /** The athlete who created it (null when an operator did, through the CLI). */
    athleteId: z.number().int().positive().nullable(),
    /** The activity it was cut from, when it was. */
    activityId: z.number().int().positive().nullable(),
    name: z.string().min(1),
    activityType: z.enum(["Ride", "Run"]),
    points: z.array(latlng).min(2),
    altitudes: z.array(z.number()).nullable(),
    distance: z.number(),
    averageGrade: z.number(),
    maximumGrade: z.number(),
    elevationHigh: z.number().nullable(),
    elevationLow: z.number().nullable(),
    totalElevationGain: z.number(),
    climbCategory: z.number().int().min(0).max(5),
    startLatlng: latlng,
    endLatlng: latlng,
    polyline: z.string(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().nullable(),
    private: z.boolean(),
    hazardous: z.boolean(),
  }),
});

/** Where a segment's elevation facts come from. */
export const elevationSource = z.enum(["barometric", "gps"]);

export const segmentProfileMeasured = defineEvent({
  type: "SegmentProfileMeasured",
  description:
    "A segment created without altitudes had its elevation profile measured from a matched effort of an activity with altitude data: the profile and the elevation facts derived from it replace the segment's. Barometric activities are preferred: a GPS-altitude measurement is replaced once by the first barometric one; nothing replaces a barometric one.",
  schema: z.object({
    segmentId: z.number().int().positive(),
    /** The activity and effort the profile was read from. */
    activityId: z.number().int().positive(),
    effortId,
    source: elevationSource,
    /** The effort's points as [metres from the effort's start, altitude in metres]. */
    profile: z.array(z.tuple([z.number(), z.number()])).min(2),
    averageGrade: z.number(),
    maximumGrade: z.number(),
    elevationHigh: z.number(),
    elevationLow: z.number(),
    totalElevationGain: z.number(),
    climbCategory: z.number().int().min(0).max(5),
  }),
});

export const segmentStarred = defineEvent({
  type: "SegmentStarred",
  description: "An athlete starred a segment.",
  schema: z.object({ segmentId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const segmentUnstarred = defineEvent({
  type: "SegmentUnstarred",
  description: "An athlete removed a segment's star.",
  schema: z.object({ segmentId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const achievement = z.object({
  typeId: z.union([z.literal(2), z.literal(3), z.literal(5)]),
  type: z.enum(["overall", "pr", "year_overall"]),
  rank: z.number().int().min(1).max(10),
});

export const matchedEffort = z.object({
  effortId,
  segmentId: z.number().int().positive(),
  name: z.string(),
  startIndex: z.number().int().min(0),
  endIndex: z.number().int().min(0),
  startDate: z.string(),
  startDateLocal: z.string(),
  elapsedTime: z.number().int().min(0),
  movingTime: z.number().int().min(0),
  distance: z.number(),
  averageHeartrate: z.number().nullable(),
  maxHeartrate: z.number().nullable(),
  averageWatts: z.number().nullable(),
  averageCadence: z.number().nullable(),
  /** Rank on the segment's overall board at upload time (1–10) or null. Never updated. */
  komRank: z.number().int().min(1).max(10).nullable(),
  /** Rank among the athlete's own efforts at upload time (1–3) or null. Never updated. */
  prRank: z.number().int().min(1).max(3).nullable(),
  achievements: z.array(achievement),
  /** false = 'important' (shown in the activity detail by default); decided at upload time. */
  hidden: z.boolean(),
  /**
   * The recorded positions at startIndex and endIndex (absent in older events: the segment's start
   * and end stand in). Others never see an effort that starts or ends in the owner's privacy zones.
   */
  startLatlng: z.tuple([z.number(), z.number()]).optional(),
  endLatlng: z.tuple([z.number(), z.number()]).optional(),
});

/** v1 → v2 of the efforts events: the activity's `visibility` instead of its `private` flag. */
const effortsPrivateToVisibility: Upcaster = ({ private: isPrivate, ...rest }) => ({
  ...rest,
  visibility: visibilityOfPrivate(isPrivate === true),
});

export const segmentEffortsMatched = defineEvent({
  type: "SegmentEffortsMatched",
  version: 2,
  upcasters: { 1: effortsPrivateToVisibility },
  description:
    "Upload processing matched the activity's track against the segments; ranks and achievements are those at upload time. v2: the activity's `visibility` instead of v1's `private`.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    activityType: z.string(),
    /** The activity's visibility when matched (its efforts follow later changes). */
    visibility: z.enum(VISIBILITIES),
    efforts: z.array(matchedEffort),
    prCount: z.number().int().min(0),
    achievementCount: z.number().int().min(0),
  }),
});

export const segmentEffortsRematched = defineEvent({
  type: "SegmentEffortsRematched",
  version: 2,
  upcasters: { 1: effortsPrivateToVisibility },
  description:
    "cli reprocess matched the activity's track again with the current algorithm, or a segment was cut from the activity and matched against it at creation; its efforts replace the earlier ones. On reprocess, efforts on segments matched before keep their ids, ranks and achievements from upload time and newly found efforts carry none; at a segment's creation the earlier efforts are kept unchanged and the new segment's efforts are added, ranked against its boards. v2: the activity's `visibility` instead of v1's `private`.",
  schema: segmentEffortsMatched.schema,
});

export const segmentStream = (segmentId: number) => `segment-${segmentId}`;

/** The events of a segment's stream (`segmentStream`): its creation (`segmentCreationDecider`) and profile (`profileDecider`). */
export type SegmentEvent = EventOf<
  | typeof segmentCreated
  | typeof segmentProfileMeasured
>;
export const segmentStarStream = (athleteId: number, segmentId: number) => `segment-star-${athleteId}-${segmentId}`;

/** The events of an athlete's star of a segment (`segmentStarStream`, `starDecider`). */
export type SegmentStarEvent = EventOf<
  | typeof segmentStarred
  | typeof segmentUnstarred
>;
