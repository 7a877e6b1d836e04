import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import { privacyZoneCreated, privacyZoneDeleted } from "../../events/privacy-zone/events.ts";
import type { Projection } from "../projection.ts";
import { heatmapSourcesBulk } from "./sources-bulk.ts";

/** Epoch seconds of a local time written as UTC ("2024-05-01T07:30:00Z"); null when unreadable. */
export function localEpochSeconds(text: string): number | null {
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/**
 * What heatmap builds need, kept apart from the activities read model: each activity's owner, type,
 * privacy, local start/end (epoch seconds), streams blob and the log position of the last event that
 * changed what a map would draw of it (its recording, a re-derivation of its streams, a change of
 * type or privacy: `changed_position`, which built maps follow); and per athlete a privacy epoch (the
 * position of the last event that changed what may be shown), which keys the tile caches.
 */
export const heatmapSourcesProjection: Projection = {
  name: "heatmap_sources",
  tables: ["heatmap_activities", "heatmap_privacy_epochs"],
  schema: `
    create table if not exists heatmap_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      type text not null,
      visibility text not null,
      start_local bigint,
      end_local bigint,
      streams_sha256 text,
      changed_position bigint not null default 0
    );
    create index if not exists heatmap_activities_athlete on heatmap_activities (athlete_id, type);
    alter table heatmap_activities add column if not exists changed_position bigint not null default 0;
    create index if not exists heatmap_activities_changed on heatmap_activities (athlete_id, changed_position);
    create table if not exists heatmap_privacy_epochs (
      athlete_id bigint primary key,
      position bigint not null
    );
  `,
  isolated: true,
  bulk: heatmapSourcesBulk,
  handles: [
    activityRecorded.type,
    activityUpdated.type,
    activityDeleted.type,
    ...REDERIVATION_TYPES,
    privacyZoneCreated.type,
    privacyZoneDeleted.type,
  ],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === activityRecorded.type) {
      const d = event.data;
      const start = localEpochSeconds(d.startDateLocal);
      await tx.query(
        `insert into heatmap_activities (activity_id, athlete_id, type, visibility, start_local, end_local, streams_sha256,
           changed_position)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (activity_id) do update set athlete_id = excluded.athlete_id, type = excluded.type,
           visibility = excluded.visibility, start_local = excluded.start_local, end_local = excluded.end_local,
           streams_sha256 = excluded.streams_sha256, changed_position = excluded.changed_position`,
        [
          d.activityId,
          d.athleteId,
          d.type,
          d.visibility,
          start,
          start === null ? null : start + d.elapsedTime,
          d.streamsSha256,
          event.position,
        ],
      );
      return;
    }
    const derived = rederivationOf(event);
    if (derived) {
      // Re-derived streams (and, with a moved start, another span): maps drawing the activity gather it again.
      const { activityId, facts, start } = derived;
      const startLocal = start === null ? null : localEpochSeconds(start.startDateLocal);
      await tx.query(
        `update heatmap_activities h
            set streams_sha256 = $2, changed_position = $3, start_local = n.s, end_local = n.s + $6::bigint
           from (select activity_id, case when $4 then $5::bigint else start_local end as s
                   from heatmap_activities where activity_id = $1) n
          where h.activity_id = n.activity_id
            and (h.streams_sha256 is distinct from $2 or h.start_local is distinct from n.s
              or h.end_local is distinct from n.s + $6::bigint)`,
        [activityId, facts.streamsSha256, event.position, start !== null, startLocal, facts.elapsedTime],
      );
      return;
    }
    if (event.type === activityUpdated.type) {
      const d = event.data;
      if (d.type !== undefined) {
        await tx.query(
          "update heatmap_activities set type = $2, changed_position = $3 where activity_id = $1 and type <> $2",
          [d.activityId, d.type, event.position],
        );
      }
      if (d.visibility === undefined) return;
      const changed = await tx.query(
        `update heatmap_activities set visibility = $2, changed_position = $3 where activity_id = $1 and visibility <> $2
         returning athlete_id`,
        [d.activityId, d.visibility, event.position],
      );
      if (changed.length > 0) await bumpPrivacyEpoch(tx, d.athleteId, event.position);
      return;
    }
    if (event.type === activityDeleted.type) {
      const d = event.data;
      await tx.query("delete from heatmap_activities where activity_id = $1", [d.activityId]);
      await bumpPrivacyEpoch(tx, d.athleteId, event.position);
      return;
    }
    if (event.type !== privacyZoneCreated.type && event.type !== privacyZoneDeleted.type) return;
    await bumpPrivacyEpoch(tx, event.data.athleteId, event.position);
  },
};

export async function bumpPrivacyEpoch(tx: Queryable, athleteId: number, position: number): Promise<void> {
  await tx.query(
    `insert into heatmap_privacy_epochs (athlete_id, position) values ($1, $2)
     on conflict (athlete_id) do update set position = excluded.position`,
    [athleteId, position],
  );
}
