import { DomainError, fold } from "../../events/decider.ts";
import { findEvent } from "../../events/index.ts";
import { heatmapDecider } from "../../events/heatmap/decide.ts";
import {
  heatmapActivitiesSelected,
  heatmapRequested,
  heatmapStream,
  heatmapTracksGathered,
} from "../../events/heatmap/events.ts";
import type { EventData } from "../../events/catalogue.ts";
import { activityTypeById } from "../../shared/activity-types.ts";
import { heatmapActivitiesMatching, pendingHeatmaps } from "../../projections/heatmaps/queries.ts";
import { getBlob, putBlob } from "../blobs.ts";
import type { JobKind } from "../jobs/runner.ts";
import type { Platform } from "../platform.ts";
import { publicZonesOf, visibleActivities } from "../privacy/engine.ts";
import {
  failHeatmap,
  HEATMAP_JOB,
  recordHeatmapBuilt,
  recordHeatmapTracks,
  selectHeatmapActivities,
  startHeatmapBuild,
} from "./commands.ts";
import { deleteTracksBlob, gatherTracks, HeatmapBuildError } from "./gather.ts";
import { heatmapStats } from "./stats.ts";
import { decodeTracks } from "./tracks.ts";

/** A heatmap is public: only what the privacy engine releases to everyone (no private activity). */
const PUBLIC_ONLY = visibleActivities(null, "h");

/** The public activities of the athlete matching the types and the local-time window. */
export async function selectActivities(
  platform: Platform,
  request: EventData<typeof heatmapRequested>,
): Promise<number[]> {
  const types = request.activityTypeIds.map((id) => activityTypeById(id)).filter((t) => t !== undefined);
  return await heatmapActivitiesMatching(platform.db, PUBLIC_ONLY, {
    athleteId: request.athleteId,
    types,
    startDateLocal: request.startDateLocal,
    endDateLocal: request.endDateLocal,
  });
}

/**
 * Runs one heatmap build from whatever status it has reached: each step appends the event of the
 * next status (queued → building → gathering → generating → done), so a restart resumes at the
 * step it was in. A failure becomes status error with an English message. Idempotent.
 */
export async function buildHeatmap(platform: Platform, mapId: number): Promise<void> {
  const stream = heatmapStream(mapId);
  for (let step = 0; step < 10; step++) {
    const history = await platform.store.readStream(stream);
    const state = fold(heatmapDecider, history);
    if (!state.exists || state.deleted || state.status === "done" || state.status === "error") return;
    const ids = { mapId, athleteId: state.athleteId };
    try {
      switch (state.status) {
        case "queued":
          await startHeatmapBuild(platform, ids);
          break;
        case "building": {
          const request = findEvent(history, heatmapRequested.type)!.data;
          await selectHeatmapActivities(platform, ids, await selectActivities(platform, request));
          break;
        }
        case "gathering": {
          const selected = findEvent(history, heatmapActivitiesSelected.type)!.data;
          const zones = await publicZonesOf(platform.db, state.athleteId);
          const gathered = await gatherTracks(platform.db, mapId, selected.activityIds, zones);
          const tracksSha256 = await putBlob(platform.db, gathered.bytes);
          rememberGathered(tracksSha256, gathered.bytes);
          try {
            await recordHeatmapTracks(platform, ids, {
              tracksSha256,
              activitiesCount: gathered.activitiesCount,
              pointsCount: gathered.pointsCount,
            });
          } catch (error) {
            // Deleted meanwhile: the blob holds this map's id, so no other map shares it.
            if (error instanceof DomainError) await deleteTracksBlob(platform, tracksSha256);
            throw error;
          }
          break;
        }
        case "generating": {
          const gathered = findEvent(history, heatmapTracksGathered.type)!.data;
          const bytes = takeGathered(gathered.tracksSha256) ?? await getBlob(platform.db, gathered.tracksSha256);
          if (!bytes) throw new HeatmapBuildError("The gathered routes of this heatmap could not be read.");
          const stats = heatmapStats(decodeTracks(bytes));
          await recordHeatmapBuilt(platform, ids, stats);
          break;
        }
      }
    } catch (error) {
      if (error instanceof DomainError) continue; // another worker moved on, or the map was deleted: re-read
      const statusMessage = error instanceof HeatmapBuildError
        ? `There was an error building your heatmap: ${error.message}`
        : "There was an error building your heatmap.";
      if (!(error instanceof HeatmapBuildError)) console.error(`heatmap ${mapId}: ${(error as Error)?.stack ?? error}`);
      await failHeatmap(platform, ids, statusMessage).catch(() => {});
      return;
    }
  }
}

/**
 * Tracks just gathered by this process, handed to the next step without reading back the blob
 * written a moment earlier (tens of megabytes for large maps). The blob stays the source: after a
 * restart, or on another server, the step reads it.
 */
const justGathered = new Map<string, Uint8Array>();

function rememberGathered(sha256: string, bytes: Uint8Array): void {
  justGathered.set(sha256, bytes);
  while (justGathered.size > 2) justGathered.delete(justGathered.keys().next().value!);
}

function takeGathered(sha256: string): Uint8Array | undefined {
  const bytes = justGathered.get(sha256);
  justGathered.delete(sha256);
  return bytes;
}

/** The durable job: pending work is every heatmap not yet done or failed (found again after a restart). */
export function heatmapBuildJob(platform: Platform): JobKind {
  return {
    kind: HEATMAP_JOB,
    async pending(db, limit) {
      return (await pendingHeatmaps(db, limit)).map(String);
    },
    run: (id) => buildHeatmap(platform, Number(id)),
  };
}
