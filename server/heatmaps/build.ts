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
import { ACTIVITY_TYPES, activityTypeById } from "../../shared/activity-types.ts";
import {
  findHeatmapById,
  heatmapActivitiesChangedAfter,
  heatmapActivitiesMatching,
  heatmapMapActivities,
  heatmapSourcesPosition,
  pendingHeatmaps,
  staleHeatmaps,
} from "../../projections/heatmaps/queries.ts";
import { getBlob, putBlob } from "../blobs.ts";
import type { JobKind } from "../jobs/runner.ts";
import type { Platform } from "../platform.ts";
import { publicZonesOf, visibleActivities } from "../privacy/engine.ts";
import {
  failHeatmap,
  HEATMAP_JOB,
  recordHeatmapBuilt,
  recordHeatmapTracks,
  recordHeatmapUpdate,
  selectHeatmapActivities,
  startHeatmapBuild,
} from "./commands.ts";
import { deleteTracksBlob, gatherTracks, HeatmapBuildError } from "./gather.ts";
import { heatmapStats } from "./stats.ts";
import { decodeTracks, TracksBuilder } from "./tracks.ts";
import { findTileSource, tileServiceOf } from "./tiles.ts";

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
    if (!state.exists || state.deleted || state.status === "error") return;
    if (state.status === "done") return await updateHeatmap(platform, mapId);
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
          const tracksSha256 = await putBlob(platform.db, gathered.bytes, { file: true });
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
          await warmViewer(platform, ids, gathered.tracksSha256);
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
 * Brings a built map up to date with its athlete's activities, without gathering it again: the
 * activities it would now draw that are new to it or changed since its last update (recorded,
 * re-derived, made public, given its type) are gathered, those it holds but would no longer draw
 * (deleted, made private, of another type now) are left out, and its other tracks are copied from
 * its tracks blob into the new one. Until then the tiles already hide what is no longer public
 * (privacyFilter); the update removes it from the new blob too. Its event releases the map's earlier
 * blob, which leaves the store (only the latest is ever read: tiles, the next update, a replay reads
 * names only), and this server's tile cache is warmed with the new one. Idempotent: an update is
 * keyed by the log position of the changes it took into account.
 */
export async function updateHeatmap(platform: Platform, mapId: number): Promise<void> {
  const map = await findHeatmapById(platform.db, mapId);
  if (!map || map.status !== "done" || !map.tracks_sha256) return;
  const ids = { mapId, athleteId: map.athlete_id };
  // Read first: any change after this position is another update's.
  const coveredPosition = await heatmapSourcesPosition(platform.db, map.athlete_id);
  if (coveredPosition <= map.covered_position) return;
  const types = map.activity_type_ids.map((id) => activityTypeById(id)).filter((t) => t !== undefined);
  const request = {
    athleteId: map.athlete_id,
    types,
    startDateLocal: map.start_date_local,
    endDateLocal: map.end_date_local,
  };
  const [wanted, held, changed] = await Promise.all([
    heatmapActivitiesMatching(platform.db, PUBLIC_ONLY, request),
    heatmapMapActivities(platform.db, mapId),
    heatmapActivitiesChangedAfter(platform.db, PUBLIC_ONLY, request, map.covered_position),
  ]);
  const wantedSet = new Set(wanted), heldSet = new Set(held);
  const added = [...new Set([...wanted.filter((id) => !heldSet.has(id)), ...changed.filter((id) => wantedSet.has(id))])]
    .sort((a, b) => a - b);
  const removed = held.filter((id) => !wantedSet.has(id));
  let tracksSha256 = map.tracks_sha256;
  let counts = { activitiesCount: map.activities_count, pointsCount: map.points_count };
  let stats = {
    tilesCount: map.tiles_count,
    centerLatlng: map.center_lat === null || map.center_lng === null
      ? null
      : [map.center_lat, map.center_lng] as [number, number],
    centerZoom: map.center_zoom,
  };
  if (added.length || removed.length) {
    const bytes = await getBlob(platform.db, map.tracks_sha256);
    if (!bytes) throw new HeatmapBuildError("The routes of this heatmap could not be read.");
    const builder = new TracksBuilder();
    const again = new Set(added), gone = new Set(removed);
    builder.addTracks(decodeTracks(bytes), (id) => !again.has(id) && !gone.has(id));
    const zones = await publicZonesOf(platform.db, map.athlete_id);
    const gathered = await gatherTracks(platform.db, mapId, added, zones, builder);
    tracksSha256 = await putBlob(platform.db, gathered.bytes, { file: true });
    counts = { activitiesCount: gathered.activitiesCount, pointsCount: gathered.pointsCount };
    stats = heatmapStats(decodeTracks(gathered.bytes));
    await warmViewer(platform, ids, tracksSha256);
  }
  await recordHeatmapUpdate(platform, ids, {
    tracksSha256,
    addedActivityIds: added,
    removedActivityIds: removed,
    ...counts,
    ...stats,
    coveredPosition,
  });
  // The earlier tracks blob is released by the update's event and removed (recordHeatmapUpdate): the
  // store keeps one tracks blob per map however often it is updated.
}

/**
 * Loads a map's new tracks into this server's tile service, computes the viewer's opening view and
 * draws its tiles before the map is said to be done (or updated), so the viewer's next visit finds
 * them: reading and decoding a history's tracks takes about a second, drawing the first tiles some
 * hundreds of ms more. Best effort: a failure is the viewer's to meet.
 */
async function warmViewer(
  platform: Platform,
  ids: { mapId: number; athleteId: number },
  tracksSha256: string,
): Promise<void> {
  const source = await findTileSource(platform.db, ids.athleteId, ids.mapId).catch(() => null);
  if (source) await tileServiceOf(platform).prerender(platform.db, { ...source, tracksSha256 }).catch(() => 0);
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
      // Builds first, then built maps whose athlete's activities changed since their last update.
      const building = await pendingHeatmaps(db, limit);
      const stale = building.length < limit
        ? await staleHeatmaps(db, PUBLIC_ONLY, ACTIVITY_TYPES, limit - building.length)
        : [];
      return [...building, ...stale].map(String);
    },
    run: (id) => buildHeatmap(platform, Number(id)),
  };
}
