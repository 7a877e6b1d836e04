import type { Queryable } from "../../events/db/types.ts";
import { isOneOf, type StoredEvent } from "../../events/index.ts";
import { athletePictureChanged, athletePictureRemoved } from "../../events/athlete-picture/events.ts";
import type { Projection } from "../projection.ts";

const HANDLES = [athletePictureChanged.type, athletePictureRemoved.type];

/** Athletes' own profile pictures (blobs of the two renditions); no row = the identicon. */
export const athletePicturesProjection: Projection = {
  name: "athlete-pictures",
  tables: ["athlete_pictures"],
  schema: `
    create table if not exists athlete_pictures (
      athlete_id bigint primary key,
      large_sha256 text not null,
      medium_sha256 text not null,
      content_type text not null,
      updated_at timestamptz not null
    );
  `,
  isolated: true,
  handles: HANDLES,
  async apply(tx: Queryable, event: StoredEvent) {
    if (!isOneOf(event, HANDLES)) return;
    if (event.type === athletePictureChanged.type) {
      const d = event.data;
      await tx.query(
        `insert into athlete_pictures (athlete_id, large_sha256, medium_sha256, content_type, updated_at)
         values ($1, $2, $3, $4, $5)
         on conflict (athlete_id) do update set large_sha256 = $2, medium_sha256 = $3, content_type = $4, updated_at = $5`,
        [d.athleteId, d.large, d.medium, d.contentType, event.recordedAt],
      );
    } else {
      await tx.query("delete from athlete_pictures where athlete_id = $1", [event.data.athleteId]);
    }
  },
};
