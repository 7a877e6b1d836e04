import {
  type ActivityDetailContributor, type ActivityDetailPart, type ActivityExtension, type ActivityRow,
  type ActivitySummaryContributor,
} from "../representations/activity.ts";
import {
  EFFORT_COLUMNS, type EffortRow, effortsWithSegments, isKomSql, type SegmentRow, summaryEffort, summarySegment,
} from "../representations/segment.ts";
import type { Queryable } from "../../events/db/types.ts";
import { effortsOthersSee } from "../privacy/engine.ts";

/**
 * The activity's segment parts, through the Activities extension point: segment_efforts (the
 * important ones — hidden false — unless include_all_efforts), pr_count and achievement_count.
 * Counts are those frozen at upload time; achievement_count also counts best-effort PRs of runs.
 */
function bestEffortAchievements(row: ActivityRow): { prs: number; achievements: number } {
  if (row.type !== "Run") return { prs: 0, achievements: 0 };
  const efforts = (row.facts as { bestEfforts?: { prRank: number | null }[] }).bestEfforts ?? [];
  return { prs: efforts.filter((e) => e.prRank === 1).length, achievements: efforts.filter((e) => e.prRank !== null).length };
}

async function facts(db: Queryable, ids: number[]) {
  if (ids.length === 0) return new Map<number, { pr_count: number; achievement_count: number }>();
  const rows = await db.query<{ activity_id: number; pr_count: number; achievement_count: number }>(
    "select activity_id, pr_count, achievement_count from segment_activity_facts where activity_id = any($1::bigint[])",
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.activity_id), r]));
}

function counts(row: ActivityRow, f: { pr_count: number; achievement_count: number } | undefined) {
  const best = bestEffortAchievements(row);
  return { pr_count: (f?.pr_count ?? 0) + best.prs, achievement_count: (f?.achievement_count ?? 0) + best.achievements };
}

/**
 * Read with the activity row in GET /v3/activities/:id's single statement (server/activities/detail.ts):
 * the frozen counts and the efforts (hidden ones only with include_all_efforts), each with its segment
 * and whether the viewer ($2) starred it. Timestamps arrive as JSON text and are normalised below
 * to what the row-by-row reads return.
 */
interface SegmentsPart {
  facts: { pr_count: number; achievement_count: number } | null;
  efforts: (EffortRow & { segment: SegmentRow | null; starred: boolean })[] | null;
}

const segmentsPart: ActivityDetailPart = {
  key: "segments",
  sql: `select json_build_object(
      'facts', (select json_build_object('pr_count', f.pr_count, 'achievement_count', f.achievement_count)
                  from segment_activity_facts f where f.activity_id = a.id),
      'efforts', (select json_agg(json_build_object(
          'id', e.id, 'segment_id', e.segment_id, 'activity_id', e.activity_id, 'athlete_id', e.athlete_id,
          'name', e.name, 'start_index', e.start_index, 'end_index', e.end_index, 'start_date', e.start_date,
          'start_date_local', e.start_date_local, 'elapsed_time', e.elapsed_time, 'moving_time', e.moving_time,
          'distance', e.distance, 'average_heartrate', e.average_heartrate, 'max_heartrate', e.max_heartrate,
          'average_watts', e.average_watts, 'average_cadence', e.average_cadence, 'kom_rank', e.kom_rank,
          'pr_rank', e.pr_rank, 'achievements', e.achievements, 'hidden', e.hidden, 'private', e.private,
          'is_kom', ${isKomSql("e")},
          'segment', (select json_build_object('id', s.id, 'name', s.name, 'activity_type', s.activity_type,
              'distance', s.distance, 'average_grade', s.average_grade, 'maximum_grade', s.maximum_grade,
              'elevation_high', s.elevation_high, 'elevation_low', s.elevation_low, 'start_lat', s.start_lat,
              'start_lng', s.start_lng, 'end_lat', s.end_lat, 'end_lng', s.end_lng, 'climb_category', s.climb_category,
              'city', s.city, 'state', s.state, 'country', s.country, 'private', s.private, 'hazardous', s.hazardous)
            from segments s where s.id = e.segment_id),
          'starred', exists (select 1 from segment_stars st where st.athlete_id = $2 and st.segment_id = e.segment_id)
        ) order by e.ord)
        from segment_efforts e where e.activity_id = a.id and ($3 or not e.hidden)
         and (not e.shielded or ($4::boolean and e.athlete_id = $2))))`,
};

/** A timestamp as JSON text (with or without offset) → the ISO form the row reads return. */
function iso(text: string, local: boolean): string {
  return new Date(local && !/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? `${text}Z` : text).toISOString();
}

function preloaded(context: { preload?: { parts: Record<string, unknown> } }): SegmentsPart | undefined {
  return context.preload?.parts.segments as SegmentsPart | undefined;
}

const segmentsSummary: ActivitySummaryContributor = async (rows, context) => {
  const pre = preloaded(context);
  if (pre && rows.length === 1) return new Map([[rows[0].id, counts(rows[0], pre.facts ?? undefined)]]);
  const byId = await facts(context.db, rows.map((r) => r.id));
  return new Map(rows.map((r) => [r.id, counts(r, byId.get(r.id))]));
};

const segmentsDetail: ActivityDetailContributor = async (row, context) => {
  const pre = preloaded(context);
  if (pre) {
    return {
      segment_efforts: (pre.efforts ?? []).map((e) =>
        summaryEffort(
          { ...e, start_date: iso(e.start_date, false), start_date_local: iso(e.start_date_local, true) },
          e.segment ? summarySegment(e.segment, e.starred) : null,
        )
      ),
      ...counts(row, pre.facts ?? undefined),
    };
  }
  // Efforts starting or ending in the owner's zones only for the owner with view_private (engine).
  const shown = effortsOthersSee(context.viewer ?? null, "e", 2);
  const rows = await context.db.query<EffortRow>(
    `select ${EFFORT_COLUMNS} from segment_efforts e where e.activity_id = $1 ${context.includeAllEfforts ? "" : "and not e.hidden"}
        and ${shown.sql}
      order by e.ord`,
    [row.id, ...shown.params],
  );
  const byId = await facts(context.db, [row.id]);
  return {
    segment_efforts: await effortsWithSegments(context.db, rows, context.viewer?.athleteId ?? null),
    ...counts(row, byId.get(row.id)),
  };
};

/** The activity's segment parts (listed in server/wiring.ts). */
export const segmentsActivityExtension: ActivityExtension = {
  part: segmentsPart,
  detail: segmentsDetail,
  summary: segmentsSummary,
};
