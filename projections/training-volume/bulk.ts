import type { Queryable } from "../../events/db/types.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";
import { created, DELETED, EDITS, LAST_SPORT, LAST_VISIBILITY, moved, REDERIVED } from "../activity-timeline.ts";

/**
 * The activities' contributions to training volume from the whole log (projections/bulk.ts), in one
 * statement; the day and year sums are then computed by `finishRebuild`, as in any rebuild. Per
 * activity, what `apply` leaves while rebuilding: the first creation after its last deletion (a
 * later one finds the row and changes nothing); its sport from the last edit naming a sport type
 * or type (the sport type, else the type), its visibility from the last edit naming one; its
 * figures from the last re-derivation after it (a reprocessing, a crop or its undoing), its day
 * from the last crop or undoing.
 */
export const trainingVolumeBulk: BulkLoader = {
  writtenFor: "472961fca571d645",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with ${DELETED},${
        created(
          `"activityId" bigint, "athleteId" bigint, type text, "sportType" text, "startDateLocal" text, visibility text,
           private boolean, distance numeric, "movingTime" int, "elapsedTime" int, "totalElevationGain" numeric`,
        )
      },${EDITS},${LAST_SPORT},${LAST_VISIBILITY},${REDERIVED},${moved("w.facts->>'startDateLocal' as local")}
       insert into volume_activities (activity_id, athlete_id, visibility, day, sport, distance, moving_time,
         elapsed_time, elevation_gain)
       select c."activityId", c."athleteId",
              coalesce(v.visibility,
                       case when c.visibility in ('everyone', 'followers_only', 'only_me') then c.visibility
                            when c.private then 'only_me' else 'everyone' end),
              substr(coalesce(m.local, c."startDateLocal"), 1, 10), coalesce(s.sport, c."sportType", c.type),
              case when r.id is null then c.distance else (r.facts->>'distance')::numeric end,
              case when r.id is not null then (r.facts->>'movingTime')::int
                   when c.event = 'ActivityRecorded' then c."movingTime" else c."elapsedTime" end,
              case when r.id is null then c."elapsedTime" else (r.facts->>'elapsedTime')::int end,
              case when r.id is not null then (r.facts->>'totalElevationGain')::numeric
                   when c.event = 'ActivityRecorded' then c."totalElevationGain" else 0 end
         from created c left join sports s on s.id = c."activityId" left join visibilities v on v.id = c."activityId"
         left join rederived r on r.id = c."activityId" left join moved m on m.id = c."activityId"`,
      [log.until],
    );
  },
};
