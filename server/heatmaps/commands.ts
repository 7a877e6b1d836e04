import { DomainError, handleCommand } from "../../events/decider.ts";
import type { EventData } from "../../events/catalogue.ts";
import { type HeatmapCommand, heatmapDecider } from "../../events/heatmap/decide.ts";
import {
  type heatmapBuilt,
  heatmapDeleted,
  type HeatmapEvent,
  type heatmapRequested,
  heatmapStream,
  heatmapTracksUpdated,
} from "../../events/heatmap/events.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import type { Platform } from "../platform.ts";
import { deleteTracksBlob } from "./gather.ts";
import { randomHeatmapId } from "./ids.ts";
import { tileServiceOf } from "./tiles.ts";

/** The build job's kind; its steps are recorded with source `job:heatmap-build`. */
export const HEATMAP_JOB = "heatmap-build";

type Request = Omit<EventData<typeof heatmapRequested>, "mapId">;
type Ids = { mapId: number; athleteId: number };

/** Requests a heatmap under a fresh random id (the build job picks it up); returns the id. */
export async function requestHeatmap(platform: Platform, request: Request, actor: Actor): Promise<number> {
  for (let attempt = 0;; attempt++) {
    const mapId = randomHeatmapId();
    try {
      await handleCommand(
        platform.store,
        heatmapStream(mapId),
        heatmapDecider,
        { type: "request", mapId, ...request },
        appendOptions(actor),
      );
      return mapId;
    } catch (error) {
      // A random id already taken (once in 10^15): draw another.
      if (error instanceof DomainError && error.code === "already exists" && attempt < 5) continue;
      throw error;
    }
  }
}

/**
 * Deletes one's heatmap: its page and tiles are gone (the tile cache forgets it, and its tracks
 * blobs, which HeatmapDeleted releases, are removed).
 */
export async function deleteHeatmap(
  platform: Platform,
  map: { id: number; tracks_sha256: string | null },
  athleteId: number,
  actor: Actor,
): Promise<void> {
  const { events } = await handleCommand(platform.store, heatmapStream(map.id), heatmapDecider, {
    type: "delete",
    mapId: map.id,
    athleteId,
  }, appendOptions(actor));
  tileServiceOf(platform).forget(map.id);
  await dropReleasedTracks(platform, events);
}

/**
 * Removes the tracks blobs the appended heatmap events release (events/blob-names.ts: no read
 * needs them, and cli verify, export and import no longer ask for them). A blob holds its map's
 * id, so no other map names it; a crash before this leaves one unneeded blob behind, nothing worse.
 */
export async function dropReleasedTracks(platform: Platform, events: readonly HeatmapEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type !== heatmapTracksUpdated.type && event.type !== heatmapDeleted.type) continue;
    for (const sha of event.data.releasedTracksSha256s) await deleteTracksBlob(platform, sha);
  }
}

/**
 * One step of the build job, recorded for the map's athlete with source `job:heatmap-build` and
 * an idempotency key per step, so a retried step appends nothing twice.
 */
function buildStep(platform: Platform, command: Exclude<HeatmapCommand, { type: "request" | "delete" }>) {
  const stream = heatmapStream(command.mapId);
  // An update is keyed by the changes it took into account (a map is updated many times).
  const step = command.type === "update" ? `update:${command.coveredPosition}` : command.type;
  return handleCommand(platform.store, stream, heatmapDecider, command, {
    idempotencyKey: `${stream}:${step}`,
    ...appendOptions(systemActor(`job:${HEATMAP_JOB}`, command.athleteId)),
  });
}

/** queued → building. */
export async function startHeatmapBuild(platform: Platform, ids: Ids): Promise<void> {
  await buildStep(platform, { type: "start", ...ids });
}

/** building → gathering: the public activities the map shows. */
export async function selectHeatmapActivities(platform: Platform, ids: Ids, activityIds: number[]): Promise<void> {
  await buildStep(platform, { type: "select", ...ids, activityIds });
}

/** gathering → generating: the tracks blob written. */
export async function recordHeatmapTracks(
  platform: Platform,
  ids: Ids,
  tracks: { tracksSha256: string; activitiesCount: number; pointsCount: number },
): Promise<void> {
  await buildStep(platform, { type: "gathered", ...ids, ...tracks });
}

/** generating → done, with the map's statistics. */
export async function recordHeatmapBuilt(
  platform: Platform,
  ids: Ids,
  stats: Omit<EventData<typeof heatmapBuilt>, keyof Ids>,
): Promise<void> {
  await buildStep(platform, { type: "built", ...ids, ...stats });
}

/** done → done: the map follows the athlete's activities (tracks added and removed, a new blob). */
export async function recordHeatmapUpdate(
  platform: Platform,
  ids: Ids,
  update: Omit<EventData<typeof heatmapTracksUpdated>, keyof Ids | "releasedTracksSha256s">,
): Promise<void> {
  const { events, result } = await buildStep(platform, { type: "update", ...ids, ...update });
  // The earlier tracks blobs this update supersedes (its event says which) leave the store.
  if (result && !result.duplicate) await dropReleasedTracks(platform, events);
}

/** Any step → error, with the English message the athlete sees. */
export async function failHeatmap(platform: Platform, ids: Ids, statusMessage: string): Promise<void> {
  await buildStep(platform, { type: "fail", ...ids, statusMessage });
}
