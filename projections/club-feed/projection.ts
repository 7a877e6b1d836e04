import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { activityCropped, activityCropUndone } from "../../events/activity/cropped.ts";
import type { Projection } from "../projection.ts";
import { clubFeedBulk } from "./bulk.ts";
import { applyActivityRuns } from "../runs.ts";

/**
 * The club activity feed's ordering table: each activity's owner, start and visibility, indexed by
 * start (all but only_me ones), so "the latest activities of a club's members a viewer may see"
 * walks one index and stops after the 200-activity window. The bodies come from the activities
 * read model.
 */
export const clubFeedProjection: Projection = {
  name: "club-feed",
  tables: ["club_feed_activities"],
  schema: `
    create table if not exists club_feed_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      start_date timestamptz not null,
      visibility text not null
    );
    create index if not exists club_feed_shared_recent on club_feed_activities (start_date desc, activity_id desc)
      include (athlete_id, visibility) where visibility <> 'only_me';
    create index if not exists club_feed_athlete on club_feed_activities (athlete_id, start_date desc);
  `,
  isolated: true,
  bulk: clubFeedBulk,
  handles: [
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    activityCropped.type,
    activityCropUndone.type,
  ],
  /** Runs of recorded/created activities in one upsert; the other events one by one. */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    await applyActivityRuns(
      events,
      async (run) => {
        const rows = run.map(({ data: d }) => ({
          id: d.activityId,
          athlete: d.athleteId,
          start: d.startDate,
          visibility: d.visibility,
        }));
        await tx.query(
          `insert into club_feed_activities (activity_id, athlete_id, start_date, visibility)
           select r.id, r.athlete, r.start, r.visibility
             from jsonb_to_recordset($1::jsonb) as r(id bigint, athlete bigint, start timestamptz, visibility text)
           on conflict (activity_id) do update set athlete_id = excluded.athlete_id, start_date = excluded.start_date,
             visibility = excluded.visibility`,
          [JSON.stringify(rows)],
        );
      },
      (e) => clubFeedProjection.apply(tx, e),
    );
  },
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === activityDeleted.type) {
      const d = event.data;
      await tx.query("delete from club_feed_activities where activity_id = $1", [d.activityId]);
      return;
    }
    if (event.type === activityUpdated.type) {
      const d = event.data;
      if (d.visibility !== undefined) {
        await tx.query("update club_feed_activities set visibility = $2 where activity_id = $1", [
          d.activityId,
          d.visibility,
        ]);
      }
      return;
    }
    if (event.type === activityCropped.type || event.type === activityCropUndone.type) {
      // A crop moves the start.
      const d = event.data;
      await tx.query("update club_feed_activities set start_date = $2 where activity_id = $1", [
        d.activityId,
        d.facts.startDate,
      ]);
      return;
    }
    if (event.type !== activityRecorded.type && event.type !== activityCreated.type) return;
    const d = event.data;
    await tx.query(
      `insert into club_feed_activities (activity_id, athlete_id, start_date, visibility) values ($1, $2, $3, $4)
       on conflict (activity_id) do update set athlete_id = excluded.athlete_id, start_date = excluded.start_date,
         visibility = excluded.visibility`,
      [d.activityId, d.athleteId, d.startDate, d.visibility],
    );
  },
};
