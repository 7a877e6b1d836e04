import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit, ONE_CREATION_PER_STREAM } from "../bulk.ts";
import { type AthleteSettings, NO_SETTINGS, putLoads } from "./loads.ts";
import type { Visibility } from "../../shared/visibility.ts";
import { REDERIVED_TYPES as REDERIVED, WINDOWED_TYPES as WINDOWED } from "../activity-timeline.ts";

/**
 * Training load from the whole log (projections/bulk.ts). An activity's load is computed by the
 * model (model.ts, in JavaScript: its exp and rounding are the live path's) with the athlete's
 * settings as they stood when it was recorded, or at its last re-derivation (a reprocessing, a crop or
 * its undoing: events/activity/rederived.ts); so the statements read, in log order, the athletes'
 * setting changes and each surviving activity's last computation (its creation or last
 * re-derivation, with the visibility of its last edit, and the start of its last crop or undoing,
 * which also gives its day), the settings are folded
 * forward between them, and the rows are written a page at a time. An activity survives unless
 * deleted, or its athlete erased, after its creation. `fits`: each activity is created once (one
 * creation per stream, each on its activity's stream, checked as the creations are decoded).
 */
const PAGE = 20_000;

interface SettingChange {
  position: number;
  type: string;
  athlete: number;
  /** Which keys the event names (b, s, f) and their values. */
  data: { b: boolean; s: boolean; f: boolean; birthdate: string | null; sex: string | null; ftp: number | null };
}

interface LoadPoint {
  position: number;
  id: number;
  athlete: number;
  start: string;
  local: string;
  visibility: Visibility;
  moving: number;
  np: number | null;
  hr: number | null;
  /** The page's last creation position. */
  last: number;
  /** The page's creations not on their activity's stream. */
  off_stream: number;
}

export const trainingLoadBulk: BulkLoader = {
  writtenFor: "3ef47fbc358dc102",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(`select ${ONE_CREATION_PER_STREAM} as fits`, [log.until]);
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    // Each athlete's settings after each change, as apply keeps them: a registration creates them (or
    // resets birthdate and sex), a profile update sets the keys it names, an erasure removes them.
    const changes = await tx.query<SettingChange>(
      `select position, type, (data->>'athleteId')::bigint as athlete,
              jsonb_build_object('b', data ? 'birthdate', 's', data ? 'sex', 'f', data ? 'ftp',
                                 'birthdate', data->'birthdate', 'sex', data->'sex', 'ftp', data->'ftp') as data
         from public.replay_log
        where type in ('AthleteRegistered', 'AthleteProfileUpdated', 'AthleteErased') and position <= $1
        order by position`,
      [log.until],
    );
    const history = new Map<number, { position: number; settings: AthleteSettings | null }[]>();
    for (const c of changes) {
      const athlete = Number(c.athlete);
      const steps = history.get(athlete) ?? [];
      const current = steps.length ? steps[steps.length - 1].settings : null;
      const d = c.data;
      let settings = current;
      if (c.type === "AthleteRegistered") {
        settings = { ftp: current?.ftp ?? null, birthdate: d.birthdate ?? null, sex: d.sex ?? null };
      } else if (c.type === "AthleteErased") settings = null;
      else if (current) {
        settings = {
          ftp: d.f ? d.ftp ?? null : current.ftp,
          birthdate: d.b ? d.birthdate ?? null : current.birthdate,
          sex: d.s ? d.sex ?? null : current.sex,
        };
      }
      steps.push({ position: Number(c.position), settings });
      history.set(athlete, steps);
    }
    /** The athlete's settings just before a position (the last change before it). */
    const settingsAt = (athlete: number, position: number): AthleteSettings => {
      const steps = history.get(athlete);
      if (!steps) return NO_SETTINGS;
      let lo = 0, hi = steps.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (steps[mid].position < position) lo = mid + 1;
        else hi = mid;
      }
      return (lo > 0 ? steps[lo - 1].settings : null) ?? NO_SETTINGS;
    };
    // The surviving activities a page of creations at a time (by the creation's position).
    for (let after = 0;;) {
      const points = await tx.query<LoadPoint>(
        `with created as materialized (
           select f."activityId" as id, f."athleteId" as athlete, e.position, e.type, e.stream_id, f."startDate",
                  f."startDateLocal", f.visibility, f."movingTime", f."elapsedTime", f."weightedAverageWatts",
                  f."averageHeartrate"
             from public.replay_log e
            cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, "startDate" text,
                  "startDateLocal" text, visibility text, "movingTime" int, "elapsedTime" int,
                  "weightedAverageWatts" jsonb, "averageHeartrate" jsonb)
            where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1 and e.position > $2
            order by e.position limit ${PAGE}),
         surviving as (
           select c.* from created c
            where not exists (select 1 from public.replay_log d
                               where d.type = 'ActivityDeleted' and d.position <= $1 and d.position > c.position
                                 and (d.data->>'activityId')::bigint = c.id)
              and not exists (select 1 from public.replay_log e
                               where e.type = 'AthleteErased' and e.position <= $1 and e.position > c.position
                                 and (e.data->>'athleteId')::bigint = c.athlete)),
         reprocessed as (
           select distinct on (s.id) s.id, r.position, r.data->'facts' as facts
             from surviving s join public.replay_log r on r.type in (${REDERIVED}) and r.position <= $1
              and r.position > s.position and (r.data->>'activityId')::bigint = s.id
            order by s.id, r.position desc),
         moved as (
           select distinct on (s.id) s.id, r.data->'facts'->>'startDate' as start,
                  r.data->'facts'->>'startDateLocal' as local
             from surviving s join public.replay_log r on r.type in (${WINDOWED}) and r.position <= $1
              and r.position > s.position and (r.data->>'activityId')::bigint = s.id
            order by s.id, r.position desc),
         privacy as (
           select distinct on (s.id) s.id, u.data->>'visibility' as visibility
             from surviving s join public.replay_log u on u.type = 'ActivityUpdated' and u.position <= $1
              and u.position > s.position and u.data ? 'visibility' and (u.data->>'activityId')::bigint = s.id
            order by s.id, u.position desc)
         select coalesce(r.position, s.position) as position, s.id, s.athlete, coalesce(m.start, s."startDate") as start,
                coalesce(m.local, s."startDateLocal") as local, coalesce(p.visibility, s.visibility) as visibility,
                case when r.id is not null then (r.facts->>'movingTime')::int
                     when s.type = 'ActivityRecorded' then s."movingTime"
                     else s."elapsedTime" end as moving,
                case when r.id is not null then r.facts->'weightedAverageWatts'
                     when s.type = 'ActivityRecorded' then s."weightedAverageWatts" end as np,
                case when r.id is not null then r.facts->'averageHeartrate'
                     when s.type = 'ActivityRecorded' then s."averageHeartrate" end as hr,
                (select max(position) from created) as last,
                (select count(*)::int from created where stream_id <> 'activity-' || id) as off_stream
           from surviving s left join reprocessed r on r.id = s.id left join privacy p on p.id = s.id
           left join moved m on m.id = s.id`,
        [log.until, after],
      );
      if (points.length === 0) break;
      if (points[0].off_stream > 0) {
        throw new LogMisfit(`${points[0].off_stream} creations off their activity's stream`);
      }
      await putLoads(
        tx,
        points.map((p) => {
          const athleteId = Number(p.athlete);
          return [{
            activityId: Number(p.id),
            athleteId,
            startDate: p.start,
            startDateLocal: p.local,
            visibility: p.visibility,
            movingTime: p.moving,
            normalizedPower: p.np ?? null,
            averageHeartrate: p.hr ?? null,
          }, settingsAt(athleteId, Number(p.position))];
        }),
      );
      after = Number(points[0].last);
    }
    const athletes = [...history].flatMap(([id, steps]) => {
      const last = steps[steps.length - 1].settings;
      return last ? [{ id, ...last }] : [];
    });
    if (athletes.length) {
      await tx.query(
        `insert into training_load_athletes (athlete_id, ftp, birthdate, sex)
         select r.id, r.ftp, r.birthdate, r.sex
           from jsonb_to_recordset($1::jsonb) as r(id bigint, ftp integer, birthdate text, sex text)`,
        [JSON.stringify(athletes)],
      );
    }
  },
};
