import type { Queryable } from "../../events/db/types.ts";
import type { ListedActivity, VisiblePredicate } from "../queries/athlete-feeds.ts";
import { nameGrams } from "./grams.ts";

/**
 * An athlete's activities searched and paged on the server (GET /v3/athletes/:id/activities/search,
 * server/feeds/search-routes.ts): filters on the activity-list read model (projection.ts), newest
 * first, paged by a keyset — the (start, id) of the last row shown — so a page is the next rows of
 * the (athlete_id, start_epoch, activity_id) index whatever its depth, and an activity added
 * meanwhile moves no other from its page. Who may see which activity is the caller's predicate (the
 * privacy engine's, over the alias `a`: the rows carry athlete_id and visibility).
 */

export interface ActivityFilters {
  /** A part of the name, any case. */
  q?: string;
  /** The activity's type or sport type. */
  sport?: string;
  /** Local start days, inclusive (YYYY-MM-DD). */
  from?: string;
  to?: string;
  gearId?: string;
  commute?: boolean;
  trainer?: boolean;
}

/** A position in the list: the start (epoch seconds) and id of an activity. */
export interface Keyset {
  start: number;
  id: number;
}

/** The filters as SQL over `activity_list a` from parameter $first on (the athlete is $1). */
function where(athleteId: number, filters: ActivityFilters, first: number): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    parts.push(sql(`$${first + params.length - 1}`));
  };
  if (filters.q) {
    const q = filters.q.toLowerCase();
    // Three characters or more: through the names' trigram index (projection.ts) — the athlete's names
    // holding every trigram of the query — then the substring itself (exact). Shorter: the substring alone.
    const grams = nameGrams(athleteId, q);
    add((p) => `position(${p} in a.name_lower) > 0`, q);
    if (grams.length) add((p) => `a.name_grams @> ${p}::text[]`, grams);
  }
  if (filters.sport) add((p) => `(a.type = ${p} or a.sport_type = ${p})`, filters.sport);
  if (filters.from) add((p) => `a.local_day >= ${p}`, filters.from);
  if (filters.to) add((p) => `a.local_day <= ${p}`, filters.to);
  if (filters.gearId) add((p) => `a.gear_id = ${p}`, filters.gearId);
  if (filters.commute !== undefined) add((p) => `a.commute = ${p}`, filters.commute);
  if (filters.trainer !== undefined) add((p) => `a.trainer = ${p}`, filters.trainer);
  return { sql: parts.length ? parts.join(" and ") : "true", params };
}

/** Whether any filter narrows the list (else its count is the athlete's whole count). */
export function filtered(filters: ActivityFilters): boolean {
  return Object.values(filters).some((v) => v !== undefined && v !== "");
}

/**
 * A page of the athlete's matching activities, newest first: `before` a keyset (older ones), or
 * `after` one (the page just newer than it, still newest first), or the newest. Answers the page
 * and whether older and newer matching activities exist beyond it.
 */
export async function searchActivities(
  db: Queryable,
  athleteId: number,
  visible: VisiblePredicate,
  filters: ActivityFilters,
  page: { limit: number; before?: Keyset; after?: Keyset },
): Promise<{ rows: (ListedActivity & Keyset)[]; older: boolean; newer: boolean }> {
  const v = visible("a", 2);
  const f = where(athleteId, filters, 2 + v.params.length);
  const base = [athleteId, ...v.params, ...f.params];
  const n = base.length;
  const conditions = `a.athlete_id = $1 and ${v.sql} and ${f.sql}`;
  type Row = { id: number | string; athlete_id: number | string; start_epoch: number | string };
  // The keyset is (start_epoch, activity_id): the list's index.
  const ascending = page.after !== undefined && page.before === undefined;
  const from = ascending ? page.after : page.before;
  const rows = await db.query<Row>(
    `select a.activity_id as id, a.athlete_id, a.start_epoch from activity_list a
      where ${conditions}
        ${
      from ? `and (a.start_epoch, a.activity_id) ${ascending ? ">" : "<"} ($${n + 2}::bigint, $${n + 3}::bigint)` : ""
    }
      order by a.start_epoch ${ascending ? "asc" : "desc"}, a.activity_id ${ascending ? "asc" : "desc"}
      limit $${n + 1}`,
    [...base, page.limit + 1, ...(from ? [from.start, from.id] : [])],
  );
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit).map((r) => ({
    id: Number(r.id),
    athleteId: Number(r.athlete_id),
    start: Number(r.start_epoch),
  }));
  if (ascending) kept.reverse();
  // The other direction: is there anything beyond the page's first (or, paging up, last) row?
  let beyond = false;
  const edge = ascending ? kept.at(-1) : kept[0];
  const probe = edge ?? from;
  // The newest page (no keyset) has nothing newer.
  if (probe && from) {
    const [row] = await db.query<{ found: boolean }>(
      `select exists (select 1 from activity_list a where ${conditions}
          and (a.start_epoch, a.activity_id) ${ascending ? "<" : ">"} ($${n + 1}::bigint, $${n + 2}::bigint)) as found`,
      [...base, probe.start, probe.id],
    );
    beyond = row?.found === true;
  }
  return {
    rows: kept,
    older: ascending ? beyond : more,
    newer: ascending ? more : beyond,
  };
}

/**
 * How many of the athlete's activities match: a read of an index range (a name of three characters or
 * more through its trigrams, a sport, local days), or of the athlete's narrow rows (other filters alone).
 */
export async function countActivities(
  db: Queryable,
  athleteId: number,
  visible: VisiblePredicate,
  filters: ActivityFilters,
): Promise<number> {
  const v = visible("a", 2);
  const f = where(athleteId, filters, 2 + v.params.length);
  const [row] = await db.query<{ n: number | string }>(
    `select count(*) as n from activity_list a where a.athlete_id = $1 and ${v.sql} and ${f.sql}`,
    [athleteId, ...v.params, ...f.params],
  );
  return Number(row?.n ?? 0);
}
