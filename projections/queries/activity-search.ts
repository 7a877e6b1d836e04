import type { Queryable } from "../../events/db/types.ts";
import type { ListedActivity, VisiblePredicate } from "./athlete-feeds.ts";

/**
 * An athlete's activities searched and paged on the server (GET /v3/athletes/:id/activities/search,
 * server/feeds/search-routes.ts): filters on the activities read model, newest first, paged by a
 * keyset — the (start, id) of the last row shown — so a page is the next rows of the
 * (athlete_id, start_epoch) index whatever its depth, and an activity added meanwhile moves no other
 * from its page. Who may see which activity is the caller's predicate (the privacy engine's).
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

/** Local days lie within 14 hours of the UTC day (UTC−12 … UTC+14): the start_epoch range to scan. */
const ZONE_MARGIN_S = 14 * 3600;
const dayEpoch = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const nextDay = (day: string) => new Date((dayEpoch(day) + 86_400) * 1000).toISOString().slice(0, 10);

/** The filters as SQL over `activities a` from parameter $first on (the athlete is $1). */
function where(filters: ActivityFilters, first: number): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    parts.push(sql(`$${first + params.length - 1}`));
  };
  if (filters.q) add((p) => `position(lower(${p}) in lower(a.name)) > 0`, filters.q);
  if (filters.sport) add((p) => `(a.type = ${p} or a.facts->>'sportType' = ${p})`, filters.sport);
  if (filters.from) {
    add((p) => `a.start_epoch >= ${p}`, dayEpoch(filters.from) - ZONE_MARGIN_S);
    add((p) => `a.start_date_local >= ${p}`, filters.from);
  }
  if (filters.to) {
    add((p) => `a.start_epoch < ${p}`, dayEpoch(filters.to) + 86_400 + ZONE_MARGIN_S);
    add((p) => `a.start_date_local < ${p}`, nextDay(filters.to));
  }
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
  const f = where(filters, 2 + v.params.length);
  const base = [athleteId, ...v.params, ...f.params];
  const n = base.length;
  const conditions = `a.athlete_id = $1 and ${v.sql} and ${f.sql}`;
  type Row = { id: number | string; athlete_id: number | string; start_epoch: number | string };
  const ascending = page.after !== undefined && page.before === undefined;
  const from = ascending ? page.after : page.before;
  const rows = await db.query<Row>(
    `select a.id, a.athlete_id, a.start_epoch from activities a
      where ${conditions}
        ${from ? `and (a.start_epoch, a.id) ${ascending ? ">" : "<"} ($${n + 2}::bigint, $${n + 3}::bigint)` : ""}
      order by a.start_epoch ${ascending ? "asc" : "desc"}, a.id ${ascending ? "asc" : "desc"}
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
      `select exists (select 1 from activities a where ${conditions}
          and (a.start_epoch, a.id) ${ascending ? "<" : ">"} ($${n + 1}::bigint, $${n + 2}::bigint)) as found`,
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

/** How many of the athlete's activities match (the filters narrow the index range of one athlete). */
export async function countActivities(
  db: Queryable,
  athleteId: number,
  visible: VisiblePredicate,
  filters: ActivityFilters,
): Promise<number> {
  const v = visible("a", 2);
  const f = where(filters, 2 + v.params.length);
  const [row] = await db.query<{ n: number | string }>(
    `select count(*) as n from activities a where a.athlete_id = $1 and ${v.sql} and ${f.sql}`,
    [athleteId, ...v.params, ...f.params],
  );
  return Number(row?.n ?? 0);
}
