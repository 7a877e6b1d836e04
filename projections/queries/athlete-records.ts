import type { Queryable } from "../../events/db/types.ts";

/**
 * An athlete's personal records as the records read model keeps them (projections/records): the
 * best of each kind and key per sport and visibility class, of one year or of all time, joined with
 * the holding activity's name, type and start (GET /v3/athletes/:id/records,
 * server/training/records.ts). Which classes the caller may see is the privacy engine's answer;
 * the caller picks the best over them. A bounded read: one row per class, sport and key.
 */
export interface RecordBest {
  kind: "effort" | "power";
  key: string;
  sport: string;
  visibility: string;
  score: number;
  value: number;
  moving_time: number | null;
  distance: number | null;
  effort_start: string | null;
  start_epoch: number;
  activity: { id: number; name: string; type: string; start_date: string; start_date_local: string };
}

export async function recordBests(
  db: Queryable,
  athleteId: number,
  classes: readonly string[],
  year: number | null,
  sports: { effort: readonly string[]; power: readonly string[] },
): Promise<RecordBest[]> {
  const rows = await db.query<{
    kind: "effort" | "power";
    key: string;
    sport: string;
    visibility: string;
    score: number;
    value: number;
    moving_time: number | null;
    distance: number | null;
    effort_start: string | null;
    start_epoch: number | string;
    id: number | string;
    name: string;
    type: string;
    start_date: string;
    start_date_local: string;
  }>(
    `select b.kind, b.key, b.sport, b.visibility, b.score, b.value, b.moving_time, b.distance, b.effort_start,
            b.start_epoch, a.id, a.name, a.type, a.start_date, a.start_date_local
       from record_bests b join activities a on a.id = b.activity_id
      where b.athlete_id = $1 and b.year = $2 and b.visibility = any($3::text[])
        and ((b.kind = 'effort' and b.sport = any($4::text[])) or (b.kind = 'power' and b.sport = any($5::text[])))`,
    [athleteId, year ?? 0, classes, sports.effort, sports.power],
  );
  return rows.map((r) => ({
    kind: r.kind,
    key: r.key,
    sport: r.sport,
    visibility: r.visibility,
    score: Number(r.score),
    value: Number(r.value),
    moving_time: r.moving_time === null ? null : Number(r.moving_time),
    distance: r.distance === null ? null : Number(r.distance),
    effort_start: r.effort_start,
    start_epoch: Number(r.start_epoch),
    activity: {
      id: Number(r.id),
      name: r.name,
      type: r.type,
      start_date: r.start_date,
      start_date_local: r.start_date_local,
    },
  }));
}

/**
 * The athlete's rides recorded with power before power curves were derived with the activities'
 * facts (the records read model's `legacy_streams`), in the given classes, sports and year (null:
 * all time): their streams blob and what a record shows of the activity. Empty once `cli reprocess`
 * has derived their curves.
 */
export async function legacyPowerRides(
  db: Queryable,
  athleteId: number,
  classes: readonly string[],
  year: number | null,
  sports: readonly string[],
): Promise<{ streams_sha256: string; visibility: string; start_epoch: number; activity: RecordBest["activity"] }[]> {
  const rows = await db.query<{
    streams_sha256: string;
    visibility: string;
    start_epoch: number | string;
    id: number | string;
    name: string;
    type: string;
    start_date: string;
    start_date_local: string;
  }>(
    `select r.legacy_streams as streams_sha256, r.visibility, r.start_epoch, a.id, a.name, a.type, a.start_date,
            a.start_date_local
       from record_activities r join activities a on a.id = r.activity_id
      where r.athlete_id = $1 and r.legacy_streams is not null and r.visibility = any($2::text[])
        and r.sport = any($3::text[]) and ($4::int is null or r.year = $4)`,
    [athleteId, classes, sports, year],
  );
  return rows.map((r) => ({
    streams_sha256: r.streams_sha256,
    visibility: r.visibility,
    start_epoch: Number(r.start_epoch),
    activity: {
      id: Number(r.id),
      name: r.name,
      type: r.type,
      start_date: r.start_date,
      start_date_local: r.start_date_local,
    },
  }));
}
