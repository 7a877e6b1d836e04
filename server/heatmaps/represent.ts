import { isoOfEpoch } from "../../shared/date-range.ts";
import type { HeatmapRow } from "../../projections/heatmaps/queries.ts";
import type { z } from "zod";
import { metaAthlete } from "../athletes/represent.ts";
import type { zCreatedHeatmap } from "./schema.ts";

export type { HeatmapRow };

/** Where the map's page and tiles live (outside /v3: browsers fetch them without a token). */
export function heatmapUrls(publicUrl: string, athleteId: number, mapId: number) {
  const web = `${publicUrl.replace(/\/+$/, "")}/heatmaps/${athleteId}/${mapId}`;
  return { web_url: web, tile_path: `${web}/tiles` };
}

/** Heatmaps stored before dates were range-checked may hold any number: never a 500 for them. */
const iso = (epochSeconds: number) => isoOfEpoch(epochSeconds);
const time = (value: string) => new Date(value).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The subset answered by POST: id, resource_state, athlete, activity_type_ids, web_url. */
export function createdHeatmap(
  row: Pick<HeatmapRow, "id" | "athlete_id" | "activity_type_ids">,
  publicUrl: string,
): z.input<typeof zCreatedHeatmap> {
  return {
    id: row.id,
    resource_state: 2,
    athlete: metaAthlete(row.athlete_id),
    activity_type_ids: row.activity_type_ids,
    web_url: heatmapUrls(publicUrl, row.athlete_id, row.id).web_url,
  };
}

/**
 * Heatmap summary (resource_state 2). center_latlng and center_zoom are null until the map is
 * built (and when no position was drawn); start/end_date_local appear only when requested.
 */
export function summaryHeatmap(row: HeatmapRow, publicUrl: string) {
  const urls = heatmapUrls(publicUrl, row.athlete_id, row.id);
  return {
    id: row.id,
    resource_state: 2,
    athlete: metaAthlete(row.athlete_id),
    created_at: time(row.created_at),
    updated_at: time(row.updated_at),
    activity_type_ids: row.activity_type_ids,
    activities_count: row.activities_count,
    tiles_count: row.tiles_count,
    center_latlng: row.center_lat === null || row.center_lng === null ? null : [row.center_lat, row.center_lng],
    center_zoom: row.center_zoom,
    tile_path: urls.tile_path,
    web_url: urls.web_url,
    ...(row.start_date_local !== null ? { start_date_local: iso(row.start_date_local) } : {}),
    ...(row.end_date_local !== null ? { end_date_local: iso(row.end_date_local) } : {}),
  };
}

/** Progress: the summary with status and status_message. */
export function progressHeatmap(row: HeatmapRow, publicUrl: string) {
  return { ...summaryHeatmap(row, publicUrl), status: row.status, status_message: row.status_message };
}
