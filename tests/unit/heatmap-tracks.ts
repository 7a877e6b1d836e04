import { worldX, worldY } from "../../server/heatmaps/mercator.ts";
import type { Tracks } from "../../server/heatmaps/tracks.ts";

/** Tracks of activities, one track each, from [lat, lng] points. */
export function tracksOf(activities: [number, number][][]): Tracks {
  const xs: number[] = [], ys: number[] = [], starts: number[] = [];
  for (const points of activities) {
    starts.push(xs.length);
    for (const [lat, lng] of points) xs.push(worldX(lng)), ys.push(worldY(lat));
  }
  starts.push(xs.length);
  return {
    mapId: 1,
    activityIds: activities.map((_, i) => i + 1),
    trackActivity: Uint32Array.from(activities.map((_, i) => i)),
    trackStart: Uint32Array.from(starts),
    xs: Uint32Array.from(xs),
    ys: Uint32Array.from(ys),
  };
}
