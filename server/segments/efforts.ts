import type { NewEvent } from "../../events/catalogue.ts";
import type { Visibility } from "../../shared/visibility.ts";
import type { Queryable } from "../../events/db/types.ts";
import { type matchedEffort, segmentEffortsMatched } from "../../events/segment/events.ts";
import { effortBoardCounts, segmentMatchStats } from "../../projections/segments/queries.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import type { RecordedActivity } from "./processors.ts";
import { segmentTypesFor } from "./matching.ts";
import { effortEndpoints, type TrackMatch, trackMatches } from "./track-matches.ts";
import { segmentIndexFor } from "./segment-index.ts";
import type { z } from "zod";

type MatchedEffort = z.infer<typeof matchedEffort>;
type Achievement = MatchedEffort["achievements"][number];

/**
 * Effort ids are 64-bit and exact end to end, and also safe for clients that parse JSON numbers
 * as IEEE-754 doubles: every id is an even integer in [2^53 + 2^52, 2^54). Between 2^53 and 2^54
 * doubles are exactly the even integers, so each id is its own double — no two efforts share one,
 * JSON.parse yields the exact value, and printing that double gives back the id's digits.
 *
 * id = EFFORT_ID_BASE + EFFORT_ID_STRIDE × (activity id × 1024 + n), n < 1024 the effort's slot in
 * its activity; activity ids stay below 2^41. Ids drawn before this scheme (2^53 + activity id ×
 * 1024 + n, consecutive) lie below EFFORT_ID_BASE, so the two never meet; events keep those as
 * they were recorded.
 */
export const EFFORT_ID_BASE = 2n ** 53n + 2n ** 52n;
export const EFFORT_ID_STRIDE = 2n;
export const EFFORTS_PER_ACTIVITY = 1024;
export function effortIdFor(activityId: number, n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= EFFORTS_PER_ACTIVITY) throw new RangeError(`effort slot ${n} out of range`);
  if (!Number.isInteger(activityId) || activityId <= 0 || activityId >= 2 ** 41) {
    throw new RangeError(`activity id ${activityId} out of range`);
  }
  return (EFFORT_ID_BASE + EFFORT_ID_STRIDE * (BigInt(activityId) * BigInt(EFFORTS_PER_ACTIVITY) + BigInt(n)))
    .toString();
}

/** Competition rank (1-based): 1 + the number of strictly better values; ties share a rank. */
export function competitionRank(better: number): number {
  return better + 1;
}

/** "2024-05-01T10:00:00Z" + seconds → ISO string without milliseconds. */
export function addSeconds(iso: string, seconds: number): string {
  const base = Date.parse(iso.endsWith("Z") || /[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`);
  return new Date(base + Math.round(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Importance (effort `hidden`), decided at upload time from the spec's factors we hold: an effort is
 * important (hidden false) when it earned an achievement (PR or top-10), when the athlete starred
 * the segment, when the segment is popular (≥ 3 stars), or when it is established (created ≥ 30 days
 * before the upload and ridden ≥ 10 times). Otherwise it is hidden (still listed with
 * include_all_efforts).
 */
export function isImportant(
  f: {
    achievements: number;
    starredByAthlete: boolean;
    starCount: number;
    segmentAgeDays: number;
    effortCount: number;
  },
): boolean {
  return f.achievements > 0 || f.starredByAthlete || f.starCount >= 3 ||
    (f.segmentAgeDays >= 30 && f.effortCount >= 10);
}

interface SegmentStats {
  star_count: number;
  effort_count: number;
  created_at: string;
  starred: boolean;
}

interface EffortToRank {
  segmentId: number;
  athleteId: number;
  elapsedTime: number;
  startDateLocal: string;
  visibility: Visibility;
}

interface BoardCounts {
  /** The athlete's own efforts on the segment that were faster. */
  own: number;
  /** Other athletes' bests on the segment that were faster. */
  overall: number;
  /** Other athletes with a faster public effort in the effort's calendar year. */
  yearly: number;
}

/**
 * The board counts behind every effort's ranks, as the boards stand before this activity: one
 * query for all efforts, ranking each segment once (queries.ts).
 */
function boardCounts(db: Queryable, athleteId: number, efforts: EffortToRank[]): Promise<BoardCounts[]> {
  return effortBoardCounts(
    db,
    athleteId,
    efforts.map((e) => ({
      segmentId: e.segmentId,
      elapsedTime: e.elapsedTime,
      year: Number(e.startDateLocal.slice(0, 4)),
    })),
  );
}

/** Ranks and achievements of a new effort, from the board counts (plus this activity's earlier efforts). */
function rankEffort(
  e: EffortToRank,
  counts: BoardCounts,
  earlierInActivity: number[],
): { komRank: number | null; prRank: number | null; achievements: Achievement[] } {
  const prPlace = competitionRank(counts.own + earlierInActivity.filter((t) => t < e.elapsedTime).length);
  const prRank = prPlace <= 3 ? prPlace : null;
  let komRank: number | null = null;
  let yearRank: number | null = null;
  // Overall and yearly places are public: only an effort everyone may see earns one.
  if (e.visibility === "everyone") {
    const place = competitionRank(counts.overall);
    komRank = place <= 10 ? place : null;
    const yearPlace = competitionRank(counts.yearly);
    yearRank = yearPlace <= 10 ? yearPlace : null;
  }
  const achievements: Achievement[] = [];
  if (komRank !== null) achievements.push({ typeId: 2, type: "overall", rank: komRank });
  else if (yearRank !== null) achievements.push({ typeId: 5, type: "year_overall", rank: yearRank });
  if (prRank !== null) achievements.push({ typeId: 3, type: "pr", rank: prRank });
  return { komRank, prRank, achievements };
}

/**
 * Efforts of a recorded activity: the track matched against every nearby segment of its sport,
 * each effort ranked at upload time. Returns the SegmentEffortsMatched data (efforts may be empty).
 */
export async function matchActivity(
  db: Queryable,
  activity: RecordedActivity["activity"],
  streams: ActivityStreams | null,
  now = new Date(),
  /** The track's efforts computed in the derive worker (track-matches.ts); else computed here. */
  precomputed?: TrackMatch[],
) {
  const types = segmentTypesFor(activity.type);
  const efforts: MatchedEffort[] = [];
  // With precomputed efforts the streams are not read at all (reading unpacks them: see derive-pool.ts).
  const matchable = () => Boolean(streams?.latlng && types.length && streams.time.length === streams.latlng.length);
  if (precomputed ? precomputed.length > 0 : matchable()) {
    const { index, meta } = await segmentIndexFor(db);
    const matches = (precomputed ?? trackMatches(index, activity.type, streams!))
      .filter((m) => {
        const s = meta.get(m.segmentId);
        return s && (!s.private || s.athleteId === activity.athleteId);
      });
    const stats = new Map<number, SegmentStats>();
    if (matches.length) {
      const rows = await segmentMatchStats(db, [...new Set(matches.map((m) => m.segmentId))], activity.athleteId);
      for (const r of rows) stats.set(Number(r.id), r);
    }
    const kept = matches.slice(0, EFFORTS_PER_ACTIVITY);
    const timed = kept.map((m) => {
      const times = m.times;
      const toRank: EffortToRank = {
        segmentId: m.segmentId,
        athleteId: activity.athleteId,
        elapsedTime: times.elapsedTime,
        startDateLocal: addSeconds(activity.startDateLocal, times.startOffset),
        visibility: activity.visibility,
      };
      return { m, times, toRank };
    });
    const counts = await boardCounts(db, activity.athleteId, timed.map((t) => t.toRank));
    const earlier = new Map<number, number[]>();
    for (const [n, { m, times, toRank }] of timed.entries()) {
      const startDateLocal = toRank.startDateLocal;
      const prior = earlier.get(m.segmentId) ?? [];
      const ranks = rankEffort(toRank, counts[n], prior);
      prior.push(times.elapsedTime);
      earlier.set(m.segmentId, prior);
      const s = stats.get(m.segmentId);
      const important = isImportant({
        achievements: ranks.achievements.length,
        starredByAthlete: s?.starred ?? false,
        starCount: s?.star_count ?? 0,
        segmentAgeDays: s ? (now.getTime() - Date.parse(s.created_at)) / 86_400_000 : 0,
        effortCount: s?.effort_count ?? 0,
      });
      efforts.push({
        effortId: effortIdFor(activity.activityId, n),
        segmentId: m.segmentId,
        name: meta.get(m.segmentId)!.name,
        startIndex: m.startIndex,
        endIndex: m.endIndex,
        startDate: addSeconds(activity.startDate, times.startOffset),
        startDateLocal,
        elapsedTime: times.elapsedTime,
        movingTime: times.movingTime,
        distance: times.distance,
        averageHeartrate: m.averageHeartrate,
        maxHeartrate: m.maxHeartrate,
        averageWatts: m.averageWatts,
        averageCadence: m.averageCadence,
        ...ranks,
        hidden: !important,
        ...(m.startLatlng && m.endLatlng
          ? { startLatlng: m.startLatlng, endLatlng: m.endLatlng }
          : effortEndpoints(streams?.latlng, m.startIndex, m.endIndex)),
      });
    }
  }
  return {
    activityId: activity.activityId,
    athleteId: activity.athleteId,
    activityType: activity.type,
    visibility: activity.visibility,
    efforts,
    prCount: efforts.filter((e) => e.prRank === 1).length,
    achievementCount: efforts.reduce((n, e) => n + e.achievements.length, 0),
  };
}

/** The recorded positions at an effort's first and last index (when both have a fix). */
/** The activity processor registered in server/activity-processors.ts. */
export async function segmentEffortsProcessor(recorded: RecordedActivity): Promise<NewEvent[]> {
  const data = await matchActivity(
    recorded.platform.db,
    recorded.activity,
    recorded.streams,
    new Date(),
    recorded.matches,
  );
  return data.efforts.length ? [segmentEffortsMatched.create(data)] : [];
}
