import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import type { Projection } from "../projection.ts";
import { activityListBulk } from "./bulk.ts";
import { NAME_GRAMS_FUNCTION } from "./grams.ts";

/**
 * The athletes' activity lists as the server searches and pages them (GET
 * /v3/athletes/:id/activities/search; queries.ts): one narrow row per activity — start, local start
 * day, name (lower case), type and sport type, gear, commute, trainer, privacy — indexed by athlete
 * and start (the keyset), by athlete and sport type, by athlete and type (a sport filter matches
 * either: two index ranges), by athlete and local day, and by the name's trigrams: `name_grams`, a
 * stored generated column (the name's three-character substrings, each prefixed by the athlete;
 * grams.ts), in a GIN index without a pending list (fastupdate off: a search never scans unsorted
 * entries) and without statistics (planning a search never reads thousands of common trigrams) — a
 * name search reads the athlete's names that hold every trigram of the query, then checks the
 * substring (exact), not every name of the athlete. The activities read model keeps everything else
 * (its rows carry the facts: a search over them read kilobytes per row).
 */
interface Row {
  activity_id: number;
  athlete_id: number;
  start_epoch: number;
  local_day: string;
  name_lower: string;
  type: string;
  sport_type: string;
  gear_id: string | null;
  commute: boolean;
  trainer: boolean;
  visibility: string;
}

const COLUMNS =
  "activity_id, athlete_id, start_epoch, local_day, name_lower, type, sport_type, gear_id, commute, trainer, visibility";

function rowOf(event: StoredEvent): Row | null {
  if (event.type !== activityRecorded.type && event.type !== activityCreated.type) return null;
  const d = event.data;
  return {
    activity_id: d.activityId,
    athlete_id: d.athleteId,
    start_epoch: Math.floor(Date.parse(d.startDate) / 1000),
    local_day: d.startDateLocal.slice(0, 10),
    name_lower: d.name.toLowerCase(),
    type: d.type,
    sport_type: d.sportType ?? d.type,
    gear_id: null,
    commute: d.commute,
    trainer: d.trainer,
    visibility: d.visibility,
  };
}

function insert(tx: Queryable, rows: Row[]) {
  return tx.query(
    `insert into activity_list (${COLUMNS})
     select ${COLUMNS} from jsonb_to_recordset($1::jsonb) as r(activity_id bigint, athlete_id bigint,
       start_epoch bigint, local_day text, name_lower text, type text, sport_type text, gear_id text,
       commute boolean, trainer boolean, visibility text)
     on conflict (activity_id) do nothing`,
    [JSON.stringify(rows)],
  );
}

export const activityListProjection: Projection = {
  name: "activity-list",
  tables: ["activity_list"],
  schema: `
    create table if not exists activity_list (
      activity_id bigint primary key,
      athlete_id bigint not null,
      start_epoch bigint not null,
      local_day text not null,
      name_lower text not null,
      type text not null,
      sport_type text not null,
      gear_id text,
      commute boolean not null,
      trainer boolean not null,
      visibility text not null
    );
    create index if not exists activity_list_start on activity_list (athlete_id, start_epoch, activity_id);
    create index if not exists activity_list_sport on activity_list (athlete_id, sport_type, start_epoch);
    create index if not exists activity_list_day on activity_list (athlete_id, local_day);
    create index if not exists activity_list_type on activity_list (athlete_id, type, start_epoch);
    ${NAME_GRAMS_FUNCTION}
    alter table activity_list add column if not exists name_grams text[]
      generated always as (activity_list_grams(athlete_id, name_lower)) stored;
    alter table activity_list alter column name_grams set statistics 0;
    create index if not exists activity_list_grams on activity_list using gin (name_grams) with (fastupdate = off);
  `,
  isolated: true,
  bulk: activityListBulk,
  handles: [
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    ...REDERIVATION_TYPES,
  ],
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    // Runs of creations in one statement each; an edit or a deletion in its place.
    let run: Row[] = [];
    for (const event of events) {
      const row = rowOf(event);
      if (row) {
        run.push(row);
        continue;
      }
      if (run.length) await insert(tx, run);
      run = [];
      await this.apply(tx, event);
    }
    if (run.length) await insert(tx, run);
  },
  async apply(tx: Queryable, event: StoredEvent) {
    const row = rowOf(event);
    if (row) {
      await insert(tx, [row]);
      return;
    }
    if (event.type === activityDeleted.type) {
      await tx.query("delete from activity_list where activity_id = $1", [event.data.activityId]);
      return;
    }
    const derived = rederivationOf(event);
    if (derived) {
      // A re-derivation that moves the start (a kept window of the recording) moves the activity in the list.
      if (derived.start === null) return;
      await tx.query("update activity_list set start_epoch = $2, local_day = $3 where activity_id = $1", [
        derived.activityId,
        Math.floor(Date.parse(derived.start.startDate) / 1000),
        derived.start.startDateLocal.slice(0, 10),
      ]);
      return;
    }
    if (event.type !== activityUpdated.type) return;
    const d = event.data;
    const sets: string[] = [];
    const params: unknown[] = [d.activityId];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (d.name !== undefined) set("name_lower", d.name.toLowerCase());
    if (d.type !== undefined) set("type", d.type);
    if (d.sportType !== undefined || d.type !== undefined) set("sport_type", d.sportType ?? d.type);
    if (d.gearId !== undefined) set("gear_id", d.gearId);
    if (d.commute !== undefined) set("commute", d.commute);
    if (d.trainer !== undefined) set("trainer", d.trainer);
    if (d.visibility !== undefined) set("visibility", d.visibility);
    if (sets.length) await tx.query(`update activity_list set ${sets.join(", ")} where activity_id = $1`, params);
  },
};
