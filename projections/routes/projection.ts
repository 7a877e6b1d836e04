import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { routeCreated, routeDeleted } from "../../events/route/events.ts";
import type { Projection } from "../projection.ts";

/**
 * Every athlete's routes (Strava's Route): one row per route, its geometry as recorded (encoded
 * polyline of every point, altitudes or null). What others may see of it is the privacy engine's
 * decision at read time (server/athlete-routes/).
 */
export const routesProjection: Projection = {
  name: "routes",
  tables: ["routes"],
  schema: `
    create table if not exists routes (
      id bigint primary key,
      athlete_id bigint not null,
      name text not null,
      description text not null,
      type smallint not null,
      sub_type smallint not null,
      private boolean not null,
      activity_id bigint,
      polyline text not null,
      altitudes jsonb,
      distance double precision not null,
      elevation_gain double precision not null,
      estimated_moving_time integer not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index if not exists routes_athlete on routes (athlete_id, id);
  `,
  isolated: true,
  handles: [routeCreated.type, routeDeleted.type],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === routeCreated.type) {
      const d = event.data;
      await tx.query(
        `insert into routes (id, athlete_id, name, description, type, sub_type, private, activity_id, polyline, altitudes,
           distance, elevation_gain, estimated_moving_time, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $14)
         on conflict (id) do nothing`,
        [
          d.routeId,
          d.athleteId,
          d.name,
          d.description,
          d.type,
          d.subType,
          d.private,
          d.activityId,
          d.polyline,
          d.altitudes === null ? null : JSON.stringify(d.altitudes),
          d.distance,
          d.elevationGain,
          d.estimatedMovingTime,
          event.recordedAt,
        ],
      );
    } else if (event.type === routeDeleted.type) {
      await tx.query("delete from routes where id = $1 and athlete_id = $2", [
        event.data.routeId,
        event.data.athleteId,
      ]);
    }
  },
};
