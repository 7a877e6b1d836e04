import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/**
 * A heatmap's life, one stream per map (`heatmap-<mapId>`). Each build step is an event, so the
 * status (queued → building → gathering → generating → done | error) is durable and a restarted
 * server resumes the build at the step it had reached.
 */
const ids = { mapId: z.number().int().positive(), athleteId: z.number().int().positive() };

export const heatmapRequested = defineEvent({
  type: "HeatmapRequested",
  description:
    "An athlete asked for a heatmap of their public activities of some types in an optional local-time window (status queued).",
  schema: z.object({
    ...ids,
    activityTypeIds: z.array(z.number().int().positive()).min(1),
    /** Epoch seconds compared with the activities' local start and end times, or null. */
    startDateLocal: z.number().int().nullable(),
    endDateLocal: z.number().int().nullable(),
  }),
});

export const heatmapBuildStarted = defineEvent({
  type: "HeatmapBuildStarted",
  description: "The build job picked the heatmap up (status building).",
  schema: z.object(ids),
});

export const heatmapActivitiesSelected = defineEvent({
  type: "HeatmapActivitiesSelected",
  description: "The public activities matching the types and window were chosen (status gathering).",
  schema: z.object({ ...ids, activityIds: z.array(z.number().int().positive()) }),
});

export const heatmapTracksGathered = defineEvent({
  type: "HeatmapTracksGathered",
  description:
    "The activities' positions, trimmed by the athlete's privacy zones, were stored as a tracks blob (status generating).",
  schema: z.object({
    ...ids,
    tracksSha256: z.string(),
    activitiesCount: z.number().int().nonnegative(),
    pointsCount: z.number().int().nonnegative(),
  }),
});

export const heatmapBuilt = defineEvent({
  type: "HeatmapBuilt",
  description: "Tile statistics were computed; the tiles can be served (status done).",
  schema: z.object({
    ...ids,
    tilesCount: z.number().int().nonnegative(),
    centerLatlng: z.tuple([z.number(), z.number()]).nullable(),
    centerZoom: z.number().int().min(0).max(18).nullable(),
  }),
});

/**
 * Tracks blobs of the map that an event releases: no later read needs them (the tiles, the next
 * update and a replay read only the map's latest blob; the read model keeps only its name), so the
 * store drops them and `cli verify`, export and import no longer ask for them
 * (events/blob-names.ts). A blob released by one map is named by no other (it holds the map's id).
 */
const released = z.array(z.string()).describe(
  "Earlier tracks blobs of this map no read needs any more (the store drops them).",
);

export const heatmapTracksUpdated = defineEvent({
  type: "HeatmapTracksUpdated",
  version: 2,
  upcasters: { 1: (data) => ({ ...data, releasedTracksSha256s: [] }) },
  description:
    "A built heatmap followed its athlete's activities: the tracks of public activities matching it that were recorded (or re-derived, or made public, or given its type) since its last update were gathered and added, those no longer public or deleted were left out, into a new tracks blob (status stays done). v2: `releasedTracksSha256s`, the map's earlier tracks blobs it supersedes, dropped from the store (v1 events released none).",
  schema: z.object({
    ...ids,
    tracksSha256: z.string(),
    /** Activities whose tracks were gathered (new to the map, or changed since). */
    addedActivityIds: z.array(z.number().int().positive()),
    /** Activities left out (deleted, made private, no longer of the map's types). */
    removedActivityIds: z.array(z.number().int().positive()),
    activitiesCount: z.number().int().nonnegative(),
    pointsCount: z.number().int().nonnegative(),
    tilesCount: z.number().int().nonnegative(),
    centerLatlng: z.tuple([z.number(), z.number()]).nullable(),
    centerZoom: z.number().int().min(0).max(18).nullable(),
    /** The athlete's activity changes (log positions) this update took into account, up to this one. */
    coveredPosition: z.number().int().nonnegative(),
    /** The map's earlier tracks blobs this one supersedes (every one not released yet but this one). */
    releasedTracksSha256s: released,
  }),
});

export const heatmapFailed = defineEvent({
  type: "HeatmapFailed",
  description: "The build failed (status error) with an English explanation.",
  schema: z.object({ ...ids, statusMessage: z.string() }),
});

export const heatmapDeleted = defineEvent({
  type: "HeatmapDeleted",
  version: 2,
  upcasters: { 1: (data) => ({ ...data, releasedTracksSha256s: [] }) },
  description:
    "The athlete deleted the heatmap; its tiles are gone. v2: `releasedTracksSha256s`, its tracks blobs, dropped from the store (v1 events named none, though the blob was dropped too).",
  schema: z.object({ ...ids, releasedTracksSha256s: released }),
});

export const heatmapStream = (mapId: number) => `heatmap-${mapId}`;

/** The events of a heatmap's stream (`heatmapStream`, `heatmapDecider`). */
export type HeatmapEvent = EventOf<
  | typeof heatmapRequested
  | typeof heatmapBuildStarted
  | typeof heatmapActivitiesSelected
  | typeof heatmapTracksGathered
  | typeof heatmapBuilt
  | typeof heatmapTracksUpdated
  | typeof heatmapFailed
  | typeof heatmapDeleted
>;

export const HEATMAP_STATUSES = ["queued", "building", "gathering", "generating", "done", "error"] as const;
export type HeatmapStatus = (typeof HEATMAP_STATUSES)[number];

/** The status each event puts the heatmap in. */
export const STATUS_AFTER: Record<string, HeatmapStatus> = {
  [heatmapRequested.type]: "queued",
  [heatmapBuildStarted.type]: "building",
  [heatmapActivitiesSelected.type]: "gathering",
  [heatmapTracksGathered.type]: "generating",
  [heatmapBuilt.type]: "done",
  [heatmapTracksUpdated.type]: "done",
  [heatmapFailed.type]: "error",
};
