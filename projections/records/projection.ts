import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityRecorded } from "../../events/activity/events.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import type { EventData } from "../../events/catalogue.ts";
import { visibilityClassOf } from "../../shared/visibility.ts";
import type { Projection } from "../projection.ts";
import { recordsBulk } from "./bulk.ts";

/**
 * Personal records (GET /v3/athletes/:id/records): the candidates each recorded activity brings —
 * its best efforts (fastest time over 400 m … marathon, kind `effort`) and its power curve (highest
 * mean power over 5 s … 1 h, kind `power`), both derived once with the activity's facts — and the
 * best of each per athlete, visibility class, sport (the activity's type), kind, key and year
 * (`year` 0: all time). The best is the highest score (watts; minus the seconds of an effort), the
 * earlier activity on a tie (start, then id).
 *
 * Live, an event that adds, removes or changes an activity's candidates (a recording, a
 * re-derivation of its facts, a change of type or privacy, a deletion) recomputes the bests of the
 * groups it touches from the candidates (an indexed read each, the first of an ordered index); a
 * rebuild keeps the candidates only and picks every best once at its end (`finishRebuild`).
 */

type Recorded = EventData<typeof activityRecorded>;
type Facts = Pick<Recorded, "bestEfforts" | "powerCurve" | "averageWatts" | "streamsSha256">;

/**
 * The streams of an activity recorded with power before power curves were derived with its facts
 * (`powerCurve` absent): the records endpoint reads its curve from them until `cli reprocess`
 * derives it. Null otherwise.
 */
function legacyStreams(facts: Facts): string | null {
  return facts.powerCurve === undefined && facts.averageWatts !== null && facts.streamsSha256
    ? facts.streamsSha256
    : null;
}

/** What of an activity the candidates are grouped by (a row of record_activities). */
interface ActivityKey {
  activity_id: number;
  athlete_id: number;
  visibility: string;
  year: number;
  sport: string;
  start_epoch: number;
}

interface Candidate {
  kind: "effort" | "power";
  key: string;
  score: number;
  value: number;
  moving_time: number | null;
  distance: number | null;
  effort_start: string | null;
}

const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function candidatesOf(facts: Facts): Candidate[] {
  const out: Candidate[] = [];
  for (const e of facts.bestEfforts ?? []) {
    // An effort without a time (a log's odd fact) ranks nothing.
    if (!Number.isFinite(e.elapsedTime)) continue;
    out.push({
      kind: "effort",
      key: e.name,
      score: -e.elapsedTime,
      value: e.elapsedTime,
      moving_time: e.movingTime,
      distance: e.distance,
      effort_start: e.startDate,
    });
  }
  for (const p of facts.powerCurve ?? []) {
    if (!Number.isFinite(p.watts) || p.watts <= 0) continue;
    out.push({
      kind: "power",
      key: String(p.duration),
      score: p.watts,
      value: p.watts,
      moving_time: null,
      distance: null,
      effort_start: null,
    });
  }
  return out;
}

const CANDIDATE_COLUMNS =
  "activity_id, athlete_id, visibility, year, sport, start_epoch, kind, key, score, value, moving_time, distance, effort_start";
const CANDIDATE_RECORD = `r(activity_id bigint, athlete_id bigint, visibility text, year integer, sport text,
  start_epoch bigint, kind text, key text, score double precision, value double precision, moving_time integer,
  distance double precision, effort_start text)`;

/** Inserts an activity's key and its candidates (a recording of an id already present adds nothing). */
async function insertActivities(tx: Queryable, rows: { key: ActivityKey; facts: Facts }[]): Promise<void> {
  if (rows.length === 0) return;
  const inserted = await tx.query<{ activity_id: string | number }>(
    `insert into record_activities (activity_id, athlete_id, visibility, year, sport, start_epoch, legacy_streams)
     select activity_id, athlete_id, visibility, year, sport, start_epoch, legacy_streams
       from jsonb_to_recordset($1::jsonb) as r(activity_id bigint, athlete_id bigint, visibility text, year integer,
         sport text, start_epoch bigint, legacy_streams text)
     on conflict (activity_id) do nothing
     returning activity_id`,
    [JSON.stringify(rows.map((r) => ({ ...r.key, legacy_streams: legacyStreams(r.facts) })))],
  );
  const fresh = new Set(inserted.map((r) => Number(r.activity_id)));
  // A run may hold the same id twice (a second recording of it adds nothing): only the first counts.
  const seen = new Set<number>();
  const candidates = rows.filter((r) => {
    const id = r.key.activity_id;
    if (!fresh.has(id) || seen.has(id)) return false;
    seen.add(id);
    return true;
  }).flatMap((r) => candidatesOf(r.facts).map((c) => ({ ...r.key, ...c })));
  await insertCandidates(tx, candidates);
}

async function insertCandidates(tx: Queryable, rows: (ActivityKey & Candidate)[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into record_candidates (${CANDIDATE_COLUMNS})
     select ${CANDIDATE_COLUMNS} from jsonb_to_recordset($1::jsonb) as ${CANDIDATE_RECORD}
     on conflict (activity_id, kind, key) do nothing`,
    [JSON.stringify(rows)],
  );
}

function keyOf(d: Recorded): ActivityKey {
  return {
    activity_id: d.activityId,
    athlete_id: d.athleteId,
    visibility: visibilityClassOf(d),
    year: Number(d.startDateLocal.slice(0, 4)),
    sport: d.type,
    start_epoch: epoch(d.startDate),
  };
}

/** The groups (athlete, class, sport, kind, key) an activity's candidates are in, as JSON for `recompute`. */
async function groupsOf(tx: Queryable, activityId: number): Promise<Group[]> {
  return await tx.query<Group>(
    `select distinct athlete_id, visibility, sport, kind, key, year from record_candidates where activity_id = $1`,
    [activityId],
  );
}

interface Group {
  athlete_id: number | string;
  visibility: string;
  sport: string;
  kind: string;
  key: string;
  year: number;
}

/**
 * The bests of these groups (each in its year and in all time, year 0) picked again from the
 * candidates: the groups' rows are removed, then each group's best (if any) inserted.
 */
async function recompute(tx: Queryable, groups: Group[]): Promise<void> {
  if (groups.length === 0) return;
  const all = new Map<string, Group>();
  for (const g of groups) {
    for (const year of [g.year, 0]) {
      const row = { ...g, athlete_id: Number(g.athlete_id), year };
      all.set(`${row.athlete_id}|${g.visibility}|${g.sport}|${g.kind}|${g.key}|${year}`, row);
    }
  }
  const json = JSON.stringify([...all.values()]);
  const groupSet = `jsonb_to_recordset($1::jsonb) as g(athlete_id bigint, visibility text, sport text, kind text,
    key text, year integer)`;
  await tx.query(
    `delete from record_bests b using ${groupSet}
      where b.athlete_id = g.athlete_id and b.visibility = g.visibility and b.sport = g.sport and b.kind = g.kind
        and b.key = g.key and b.year = g.year`,
    [json],
  );
  await tx.query(
    `insert into record_bests (athlete_id, visibility, sport, kind, key, year, activity_id, start_epoch, score, value,
       moving_time, distance, effort_start)
     select g.athlete_id, g.visibility, g.sport, g.kind, g.key, g.year, c.activity_id, c.start_epoch, c.score, c.value,
            c.moving_time, c.distance, c.effort_start
       from ${groupSet}
       cross join lateral (
         select c.activity_id, c.start_epoch, c.score, c.value, c.moving_time, c.distance, c.effort_start
           from record_candidates c
          where c.athlete_id = g.athlete_id and c.visibility = g.visibility and c.sport = g.sport
            and c.kind = g.kind and c.key = g.key and (g.year = 0 or c.year = g.year)
          order by c.score desc, c.start_epoch, c.activity_id
          limit 1) c`,
    [json],
  );
}

export const recordsProjection: Projection = {
  name: "records",
  tables: ["record_activities", "record_candidates", "record_bests"],
  schema: `
    create table if not exists record_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      visibility text not null,
      year integer not null,
      sport text not null,
      start_epoch bigint not null,
      legacy_streams text
    );
    create index if not exists record_activities_legacy on record_activities (athlete_id)
      where legacy_streams is not null;
    create table if not exists record_candidates (
      activity_id bigint not null,
      athlete_id bigint not null,
      visibility text not null,
      year integer not null,
      sport text not null,
      start_epoch bigint not null,
      kind text not null,
      key text not null,
      score double precision not null,
      value double precision not null,
      moving_time integer,
      distance double precision,
      effort_start text,
      primary key (activity_id, kind, key)
    );
    create index if not exists record_candidates_all on record_candidates
      (athlete_id, visibility, sport, kind, key, score desc, start_epoch, activity_id);
    create index if not exists record_candidates_year on record_candidates
      (athlete_id, visibility, sport, kind, key, year, score desc, start_epoch, activity_id);
    create table if not exists record_bests (
      athlete_id bigint not null,
      visibility text not null,
      sport text not null,
      kind text not null,
      key text not null,
      year integer not null,
      activity_id bigint not null,
      start_epoch bigint not null,
      score double precision not null,
      value double precision not null,
      moving_time integer,
      distance double precision,
      effort_start text,
      primary key (athlete_id, year, visibility, sport, kind, key)
    );
  `,
  isolated: true,
  bulk: recordsBulk,
  handles: [activityRecorded.type, activityUpdated.type, activityDeleted.type, ...REDERIVATION_TYPES],
  async applyBatch(tx: Queryable, events: StoredEvent[], rebuilding?: boolean) {
    if (!rebuilding) {
      for (const event of events) await this.apply(tx, event, false);
      return;
    }
    // A rebuild keeps candidates only: runs of recordings go in with two statements.
    let run: { key: ActivityKey; facts: Facts }[] = [];
    for (const event of events) {
      if (event.type === activityRecorded.type) {
        run.push({ key: keyOf(event.data), facts: event.data });
        continue;
      }
      await insertActivities(tx, run);
      run = [];
      await this.apply(tx, event, true);
    }
    await insertActivities(tx, run);
  },
  async apply(tx: Queryable, event: StoredEvent, rebuilding?: boolean) {
    switch (event.type) {
      case activityRecorded.type: {
        const key = keyOf(event.data);
        const before = rebuilding ? [] : await groupsOf(tx, key.activity_id);
        await insertActivities(tx, [{ key, facts: event.data }]);
        if (!rebuilding) await recompute(tx, [...before, ...(await groupsOf(tx, key.activity_id))]);
        return;
      }
      case activityUpdated.type: {
        const d = event.data;
        if (d.type === undefined && d.visibility === undefined) return;
        return change(tx, d.activityId, rebuilding, async () => {
          const params = [
            d.activityId,
            d.type ?? null,
            d.visibility ?? null,
          ];
          const set = "sport = coalesce($2, sport), visibility = coalesce($3, visibility)";
          await tx.query(`update record_activities set ${set} where activity_id = $1`, params);
          await tx.query(`update record_candidates set ${set} where activity_id = $1`, params);
        });
      }
      case activityDeleted.type: {
        const { activityId } = event.data;
        return change(tx, activityId, rebuilding, async () => {
          await tx.query("delete from record_activities where activity_id = $1", [activityId]);
          await tx.query("delete from record_candidates where activity_id = $1", [activityId]);
        });
      }
    }
    const derived = rederivationOf(event);
    if (!derived) return;
    // Any re-derivation of the facts replaces the activity's candidates (and moves its year and start with its start).
    const { activityId, facts, start } = derived;
    return change(tx, activityId, rebuilding, async () => {
      const moved = start === null ? [null, null] : [Number(start.startDateLocal.slice(0, 4)), epoch(start.startDate)];
      const [key] = await tx.query<ActivityKey>(
        `update record_activities set legacy_streams = $2, year = coalesce($3, year), start_epoch = coalesce($4, start_epoch)
          where activity_id = $1
          returning activity_id, athlete_id, visibility, year, sport, start_epoch`,
        [activityId, legacyStreams(facts), ...moved],
      );
      await tx.query("delete from record_candidates where activity_id = $1", [activityId]);
      if (key) await insertCandidates(tx, candidatesOf(facts).map((c) => ({ ...key, ...c })));
    });
  },
  async finishRebuild(tx: Queryable) {
    await tx.exec(`
      insert into record_bests (athlete_id, visibility, sport, kind, key, year, activity_id, start_epoch, score, value,
        moving_time, distance, effort_start)
      select distinct on (athlete_id, visibility, sport, kind, key, year)
             athlete_id, visibility, sport, kind, key, year, activity_id, start_epoch, score, value, moving_time,
             distance, effort_start
        from (select athlete_id, visibility, sport, kind, key, year, activity_id, start_epoch, score, value,
                     moving_time, distance, effort_start from record_candidates
              union all
              select athlete_id, visibility, sport, kind, key, 0, activity_id, start_epoch, score, value,
                     moving_time, distance, effort_start from record_candidates) c
       order by athlete_id, visibility, sport, kind, key, year, score desc, start_epoch, activity_id;
    `);
  },
};

/** Runs an edit of an activity's candidates; live, the bests of the groups it was and is in are picked again. */
async function change(tx: Queryable, activityId: number, rebuilding: boolean | undefined, edit: () => Promise<void>) {
  if (rebuilding) return edit();
  const before = await groupsOf(tx, activityId);
  await edit();
  await recompute(tx, [...before, ...(await groupsOf(tx, activityId))]);
}
