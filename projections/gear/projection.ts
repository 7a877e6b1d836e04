import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { gearAdded } from "../../events/gear/events.ts";
import type { Projection } from "../projection.ts";

/** The athletes' bikes and shoes. Distance is summed from the activities read model when read. */
export const gearProjection: Projection = {
  name: "gear",
  tables: ["gear"],
  schema: `
    create table if not exists gear (
      id text primary key,
      athlete_id bigint not null,
      kind text not null,
      name text not null,
      nickname text,
      brand_name text,
      model_name text,
      description text,
      frame_type integer,
      weight double precision,
      is_primary boolean not null,
      retired boolean not null default false,
      position bigint not null
    );
    create index if not exists gear_athlete on gear (athlete_id, kind, position);
  `,
  isolated: true,
  handles: [gearAdded.type],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type !== gearAdded.type) return;
    const d = event.data;
    if (d.primary) {
      await tx.query("update gear set is_primary = false where athlete_id = $1 and kind = $2", [d.athleteId, d.kind]);
    }
    await tx.query(
      `insert into gear (id, athlete_id, kind, name, nickname, brand_name, model_name, description, frame_type,
         weight, is_primary, position)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) on conflict (id) do nothing`,
      [
        d.gearId,
        d.athleteId,
        d.kind,
        d.name,
        d.nickname,
        d.brandName,
        d.modelName,
        d.description,
        d.frameType,
        d.weight,
        d.primary,
        event.position,
      ],
    );
  },
};
