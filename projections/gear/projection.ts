import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { gearAdded, gearUpdated } from "../../events/gear/events.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import type { Projection } from "../projection.ts";
import { type ActivityStart, applyInRuns } from "../runs.ts";
import { gearBulk } from "./bulk.ts";

/** GearUpdated's fields and their columns. */
const UPDATE_COLUMNS: Record<string, string> = {
  name: "name",
  nickname: "nickname",
  brandName: "brand_name",
  modelName: "model_name",
  description: "description",
  primary: "is_primary",
  retired: "retired",
  reminderDistance: "reminder_distance",
};

/**
 * The athletes' bikes and shoes, with their distance kept as events arrive: `gear_activities` holds
 * each activity's distance and gear (its owner's gear only, as PUT /v3/activities/:id checks), and
 * `gear.distance` moves when an activity names or leaves a gear, is re-derived (cli reprocess) or
 * deleted — a read is one row, never a sum over the athlete's history. `distance` is numeric so that
 * adding and taking back the same distances leaves no float residue (live and replay agree).
 */
export const gearProjection: Projection = {
  name: "gear",
  tables: ["gear", "gear_activities"],
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
      reminder_distance double precision,
      distance numeric not null default 0,
      position bigint not null
    );
    create index if not exists gear_athlete on gear (athlete_id, kind, position);
    create table if not exists gear_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      gear_id text,
      distance double precision not null
    );
    create index if not exists gear_activities_gear on gear_activities (gear_id) where gear_id is not null;
  `,
  isolated: true,
  bulk: gearBulk,
  handles: [
    gearAdded.type,
    gearUpdated.type,
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    ...REDERIVATION_TYPES,
    activityDeleted.type,
  ],
  /** Runs of recordings and creations (no gear yet) in one insert; edits without gear passed over; the rest alone. */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    await applyInRuns(
      events,
      (e) =>
        e.type === activityRecorded.type || e.type === activityCreated.type
          ? String(e.data.activityId)
          : e.type === activityUpdated.type && e.data.gearId === undefined
          ? false
          : null,
      (run) => insertActivities(tx, run as ActivityStart[]),
      (e) => gearProjection.apply(tx, e),
    );
  },
  async apply(tx: Queryable, event: StoredEvent) {
    switch (event.type) {
      case gearAdded.type: {
        const d = event.data;
        if (d.primary) {
          await tx.query("update gear set is_primary = false where athlete_id = $1 and kind = $2", [
            d.athleteId,
            d.kind,
          ]);
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
        return;
      }
      case gearUpdated.type: {
        const d: Record<string, unknown> = event.data;
        if (d.primary === true) {
          await tx.query(
            `update gear set is_primary = false
              where athlete_id = $1 and kind = (select kind from gear where id = $2) and id <> $2`,
            [event.data.athleteId, event.data.gearId],
          );
        }
        const sets: string[] = [];
        const params: unknown[] = [event.data.gearId];
        for (const [key, column] of Object.entries(UPDATE_COLUMNS)) {
          if (d[key] === undefined) continue;
          params.push(d[key]);
          sets.push(`${column} = $${params.length}`);
        }
        if (sets.length) await tx.query(`update gear set ${sets.join(", ")} where id = $1`, params);
        return;
      }
      case activityRecorded.type:
      case activityCreated.type:
        return insertActivities(tx, [event]);
      case activityUpdated.type: {
        const d = event.data;
        if (d.gearId === undefined) return;
        const [row] = await tx.query<{ gear_id: string | null; distance: number }>(
          "select gear_id, distance from gear_activities where activity_id = $1",
          [d.activityId],
        );
        if (!row || row.gear_id === d.gearId) return;
        await moveDistance(tx, row.gear_id, d.athleteId, -row.distance);
        await moveDistance(tx, d.gearId, d.athleteId, row.distance);
        await tx.query("update gear_activities set gear_id = $2 where activity_id = $1", [d.activityId, d.gearId]);
        return;
      }
      case activityDeleted.type: {
        const d = event.data;
        const [row] = await tx.query<{ gear_id: string | null; distance: number }>(
          "delete from gear_activities where activity_id = $1 returning gear_id, distance",
          [d.activityId],
        );
        if (row) await moveDistance(tx, row.gear_id, d.athleteId, -row.distance);
        return;
      }
      default: {
        // Re-derived figures (reprocess, crop, split, undo): the gear's distance follows.
        const derived = rederivationOf(event);
        if (!derived) return;
        const { activityId, athleteId, facts } = derived;
        const [row] = await tx.query<{ gear_id: string | null; distance: number }>(
          "select gear_id, distance from gear_activities where activity_id = $1",
          [activityId],
        );
        if (!row || row.distance === facts.distance) return;
        await moveDistance(tx, row.gear_id, athleteId, -row.distance);
        await moveDistance(tx, row.gear_id, athleteId, facts.distance);
        await tx.query("update gear_activities set distance = $2 where activity_id = $1", [activityId, facts.distance]);
        return;
      }
    }
  },
};

/** Activities recorded or created (no gear yet): their distances, in one statement. */
async function insertActivities(tx: Queryable, run: ActivityStart[]) {
  if (run.length === 0) return;
  await tx.query(
    `insert into gear_activities (activity_id, athlete_id, gear_id, distance)
     select r.id, r.athlete, null, r.distance
       from jsonb_to_recordset($1::jsonb) as r(id bigint, athlete bigint, distance double precision)
     on conflict (activity_id) do nothing`,
    [JSON.stringify(run.map((e) => ({ id: e.data.activityId, athlete: e.data.athleteId, distance: e.data.distance })))],
  );
}

/** Adds `distance` (metres, may be negative) to the athlete's gear `gearId` (nothing for none or another's). */
async function moveDistance(tx: Queryable, gearId: string | null, athleteId: number, distance: number) {
  if (gearId === null || distance === 0) return;
  await tx.query("update gear set distance = distance + $3::float8::numeric where id = $1 and athlete_id = $2", [
    gearId,
    athleteId,
    distance,
  ]);
}
