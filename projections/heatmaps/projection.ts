import type { Queryable } from "../../events/db/types.ts";
import { isOneOf, type StoredEvent } from "../../events/index.ts";
import {
  heatmapActivitiesSelected,
  heatmapBuildStarted,
  heatmapBuilt,
  heatmapDeleted,
  heatmapFailed,
  heatmapRequested,
  heatmapTracksGathered,
  heatmapTracksUpdated,
} from "../../events/heatmap/events.ts";
import type { Projection } from "../projection.ts";

/** English status_message of each status (progress responses). */
export function heatmapStatusMessage(status: string, detail: { activities?: number; error?: string } = {}): string {
  switch (status) {
    case "queued":
      return "Your heatmap is waiting to be built.";
    case "building":
      return "Your heatmap is being built: choosing your public activities.";
    case "gathering":
      return `Gathering the routes of ${detail.activities ?? 0} public ${
        detail.activities === 1 ? "activity" : "activities"
      }.`;
    case "generating":
      return "Generating the map tiles.";
    case "done":
      return "Your heatmap is ready.";
    default:
      return detail.error ?? "There was an error building your heatmap.";
  }
}

/**
 * Heatmaps by id with their build status and, once built, their statistics; the activities each
 * map was made of (selected at its build, added and removed by its updates) and the log position of
 * the athlete's activity changes its selection or last update took into account, so the build job
 * finds the maps to update (projections/heatmaps/queries.ts: staleHeatmaps).
 */
const HANDLES = [
  heatmapRequested.type,
  heatmapBuildStarted.type,
  heatmapActivitiesSelected.type,
  heatmapTracksGathered.type,
  heatmapBuilt.type,
  heatmapTracksUpdated.type,
  heatmapFailed.type,
  heatmapDeleted.type,
];

export const heatmapsProjection: Projection = {
  name: "heatmaps",
  tables: ["heatmaps", "heatmap_map_activities"],
  schema: `
    create table if not exists heatmaps (
      id bigint primary key,
      athlete_id bigint not null,
      activity_type_ids integer[] not null,
      start_date_local bigint,
      end_date_local bigint,
      status text not null,
      status_message text not null,
      selected_count integer not null default 0,
      activities_count integer not null default 0,
      points_count integer not null default 0,
      tiles_count integer not null default 0,
      tracks_sha256 text,
      center_lat double precision,
      center_lng double precision,
      center_zoom integer,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      covered_position bigint not null default 0
    );
    alter table heatmaps add column if not exists covered_position bigint not null default 0;
    create table if not exists heatmap_map_activities (
      map_id bigint not null,
      activity_id bigint not null,
      primary key (map_id, activity_id)
    );
    create index if not exists heatmaps_athlete on heatmaps (athlete_id, created_at);
    create index if not exists heatmaps_pending on heatmaps (status) where status not in ('done', 'error');
  `,
  isolated: true,
  handles: HANDLES,
  async apply(tx: Queryable, event: StoredEvent) {
    const at = event.recordedAt;
    if (!isOneOf(event, HANDLES)) return;
    const d = event.data;
    const set = (sql: string, params: unknown[]) =>
      tx.query(`update heatmaps set ${sql}, updated_at = $2 where id = $1`, [d.mapId, at, ...params]);
    switch (event.type) {
      case heatmapRequested.type: {
        const r = event.data;
        await tx.query(
          `insert into heatmaps (id, athlete_id, activity_type_ids, start_date_local, end_date_local, status, status_message, created_at, updated_at)
           values ($1, $2, $3::integer[], $4, $5, 'queued', $6, $7, $7) on conflict (id) do nothing`,
          [
            r.mapId,
            r.athleteId,
            r.activityTypeIds,
            r.startDateLocal,
            r.endDateLocal,
            heatmapStatusMessage("queued"),
            at,
          ],
        );
        return;
      }
      case heatmapBuildStarted.type:
        await set("status = 'building', status_message = $3", [heatmapStatusMessage("building")]);
        return;
      case heatmapActivitiesSelected.type: {
        const n = event.data.activityIds.length;
        // The selection read the athlete's activities as of this event: later changes are the updates'.
        await set("status = 'gathering', status_message = $3, selected_count = $4, covered_position = $5", [
          heatmapStatusMessage("gathering", { activities: n }),
          n,
          event.position,
        ]);
        await tx.query(
          `insert into heatmap_map_activities (map_id, activity_id)
           select $1, unnest($2::bigint[]) on conflict do nothing`,
          [d.mapId, event.data.activityIds],
        );
        return;
      }
      case heatmapTracksUpdated.type: {
        const u = event.data;
        await set(
          `tracks_sha256 = $3, activities_count = $4, points_count = $5, tiles_count = $6, center_lat = $7,
           center_lng = $8, center_zoom = $9, covered_position = $10`,
          [
            u.tracksSha256,
            u.activitiesCount,
            u.pointsCount,
            u.tilesCount,
            u.centerLatlng?.[0] ?? null,
            u.centerLatlng?.[1] ?? null,
            u.centerZoom,
            u.coveredPosition,
          ],
        );
        await tx.query(
          "delete from heatmap_map_activities where map_id = $1 and activity_id = any($2::bigint[])",
          [u.mapId, u.removedActivityIds],
        );
        await tx.query(
          `insert into heatmap_map_activities (map_id, activity_id)
           select $1, unnest($2::bigint[]) on conflict do nothing`,
          [u.mapId, u.addedActivityIds],
        );
        return;
      }
      case heatmapTracksGathered.type:
        await set(
          "status = 'generating', status_message = $3, tracks_sha256 = $4, activities_count = $5, points_count = $6",
          [
            heatmapStatusMessage("generating"),
            event.data.tracksSha256,
            event.data.activitiesCount,
            event.data.pointsCount,
          ],
        );
        return;
      case heatmapBuilt.type: {
        const center = event.data.centerLatlng;
        await set(
          "status = 'done', status_message = $3, tiles_count = $4, center_lat = $5, center_lng = $6, center_zoom = $7",
          [
            heatmapStatusMessage("done"),
            event.data.tilesCount,
            center?.[0] ?? null,
            center?.[1] ?? null,
            event.data.centerZoom,
          ],
        );
        return;
      }
      case heatmapFailed.type:
        await set("status = 'error', status_message = $3", [event.data.statusMessage]);
        return;
      case heatmapDeleted.type:
        await tx.query("delete from heatmaps where id = $1", [d.mapId]);
        await tx.query("delete from heatmap_map_activities where map_id = $1", [d.mapId]);
        return;
    }
  },
};
