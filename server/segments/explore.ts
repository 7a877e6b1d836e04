import type { Queryable } from "../../events/db/types.ts";
import type { SegmentRow } from "../representations/segment.ts";
import { SEGMENT_COLUMNS } from "../representations/segment.ts";

export interface ExploreQuery {
  bounds: [number, number, number, number];
  activityType: "Ride" | "Run";
  minCat: number;
  maxCat: number;
}

/**
 * Up to 10 public segments whose start lies inside the bounds (south, west, north, east), of one
 * activity type and climb-category range; the most attempted (athlete_count, then effort_count)
 * first. Uses the (activity_type, start_lat, start_lng) index.
 */
export function exploreSegments(db: Queryable, q: ExploreQuery) {
  const [south, west, north, east] = q.bounds;
  return db.query<SegmentRow & { elev_difference: number }>(
    `select ${SEGMENT_COLUMNS},
            s.elevation_difference as elev_difference
       from segments s
      where s.activity_type = $1 and s.start_lat between $2 and $4 and s.start_lng between $3 and $5
        and s.climb_category between $6 and $7 and not s.private
      order by s.athlete_count desc, s.effort_count desc, s.id
      limit 10`,
    [q.activityType, south, west, north, east, q.minCat, q.maxCat],
  );
}
