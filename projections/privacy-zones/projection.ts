import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { privacyZoneCreated, privacyZoneDeleted } from "../../events/privacy-zone/events.ts";
import type { Projection } from "../projection.ts";

/**
 * Every athlete's privacy zones. Shared with the activities read side (streams are trimmed for
 * other viewers with the same zones), so the table's shape is fixed:
 * privacy_zones(id, athlete_id, lat, lng, radius_m, created_at).
 */
export const privacyZonesProjection: Projection = {
  name: "privacy_zones",
  tables: ["privacy_zones"],
  schema: `
    create table if not exists privacy_zones (
      id bigint primary key,
      athlete_id bigint not null,
      lat double precision not null,
      lng double precision not null,
      radius_m double precision not null,
      created_at timestamptz not null
    );
    create index if not exists privacy_zones_athlete on privacy_zones (athlete_id);
  `,
  reads: [],
  handles: [privacyZoneCreated.type, privacyZoneDeleted.type],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === privacyZoneCreated.type) {
      const d = event.data;
      await tx.query(
        `insert into privacy_zones (id, athlete_id, lat, lng, radius_m, created_at) values ($1, $2, $3, $4, $5, $6)
         on conflict (id) do nothing`,
        [d.zoneId, d.athleteId, d.lat, d.lng, d.radiusM, event.recordedAt],
      );
    } else if (event.type === privacyZoneDeleted.type) {
      const d = event.data;
      await tx.query("delete from privacy_zones where id = $1 and athlete_id = $2", [d.zoneId, d.athleteId]);
    }
  },
};
