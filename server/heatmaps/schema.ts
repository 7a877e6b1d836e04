import { z } from "zod";
import { dateTime, int, model, nullableInt, zLatLng, zMetaAthlete } from "../http/schema.ts";

/** Personal heatmaps (ours, modelled on Strava's personal heatmap). */
const base = {
  id: int,
  resource_state: int,
  athlete: zMetaAthlete,
  activity_type_ids: z.array(int),
  web_url: z.string(),
};

export const zCreatedHeatmap = model(
  "CreatedHeatmap",
  z.object(base),
  "Extension: a heatmap just requested (it builds in the background).",
);

const summaryShape = {
  ...base,
  created_at: dateTime,
  updated_at: dateTime,
  activities_count: int,
  tiles_count: int,
  center_latlng: zLatLng.nullable(),
  center_zoom: nullableInt,
  tile_path: z.string(),
  start_date_local: dateTime.optional(),
  end_date_local: dateTime.optional(),
};

export const zHeatmap = model(
  "Heatmap",
  z.object(summaryShape),
  "Extension: a personal heatmap; its tiles live under tile_path.",
  {
    id: 12,
    resource_state: 2,
    athlete: { id: 134815, resource_state: 1 },
    activity_type_ids: [1, 2],
    web_url: "https://fitness.example.com/heatmaps/134815/12",
    created_at: "2024-05-06T07:08:09Z",
    updated_at: "2024-05-06T07:09:10Z",
    activities_count: 214,
    tiles_count: 380,
    center_latlng: [52.09, 5.12],
    center_zoom: 11,
    tile_path: "https://fitness.example.com/heatmaps/134815/12/tiles",
  },
);

export const zHeatmapProgress = model(
  "HeatmapProgress",
  z.object({ ...summaryShape, status: z.string(), status_message: z.string() }),
  "Extension: a heatmap with its build status.",
);

export const zHeatmapList = z.array(zHeatmap);
