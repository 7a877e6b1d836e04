import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent, StoredEventOfType } from "../../events/index.ts";
import type { Visibility } from "../../shared/visibility.ts";

/** A row of the activities table as the two creation events insert it. */
export interface ActivityRow {
  id: number;
  athlete_id: number;
  upload_id: number | null;
  external_id: string | null;
  name: string;
  type: string;
  description: string | null;
  start_date: string;
  start_epoch: number;
  start_date_local: string;
  timezone: string;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  total_elevation_gain: number;
  visibility: Visibility;
  commute: boolean;
  trainer: boolean;
  manual: boolean;
  facts: unknown;
  recorded_position: number;
}

/** The event types a group applies with set-based statements; any other event is applied in its place. */
export const GROUPED = new Set([
  "ActivityRecorded",
  "ActivityCreated",
  "ActivityUpdated",
  "KudosGiven",
  "CommentAdded",
  "CommentDeleted",
]);

const UPDATE_COLUMNS: Record<string, string> = {
  name: "name",
  type: "type",
  visibility: "visibility",
  commute: "commute",
  trainer: "trainer",
  gearId: "gear_id",
  description: "description",
};
const FACT_UPDATES = ["sportType", "hideFromHome"] as const;

/**
 * Consecutive creations, edits, kudos and comments of a run, applied with one statement per table
 * and kind, leaving the tables exactly as applying them one by one does. Within a group the
 * statements run in a fixed order (activity inserts, kudos, comment inserts, comment deletes,
 * edits, counters), which equals log order as long as no event depends on a later one of the
 * group: `accepts` refuses (ends the group before) a creation of an activity the group already
 * touched, and a comment added again after its deletion in the group. Duplicates keep the first
 * (every insert is `on conflict do nothing`); edits of one activity merge field by field, the
 * last value winning (each sets columns and top-level jsonb keys); counters are recounted once per
 * touched activity, after every row change of the group, which is what the last recount of one
 * by one leaves.
 */
export class ActivityGroup {
  readonly #inserted = new Map<number, ActivityRow>();
  readonly #touched = new Set<number>();
  readonly #kudos = new Map<string, { activity_id: number; athlete_id: number; position: number }>();
  readonly #kudosCounted = new Set<number>();
  readonly #comments = new Map<
    number,
    { id: number; activity_id: number; athlete_id: number; text: string; created_at: string; position: number }
  >();
  readonly #deletedComments = new Set<number>();
  readonly #commentsCounted = new Set<number>();
  readonly #edits = new Map<number, { id: number; set: Record<string, unknown>; facts: Record<string, unknown> }>();
  #size = 0;
  #first: StoredEvent | undefined;

  get size(): number {
    return this.#size;
  }

  /** The group's event when it holds just one. */
  get only(): StoredEvent | undefined {
    return this.#size === 1 ? this.#first : undefined;
  }

  /** Whether the event can join this group without changing the outcome. */
  accepts(event: StoredEvent, row?: ActivityRow): boolean {
    if (!GROUPED.has(event.type)) return false;
    if (row) return !this.#touched.has(row.id) || this.#inserted.has(row.id);
    if (event.type === "CommentAdded") return !this.#deletedComments.has(event.data.commentId);
    return true;
  }

  /** Adds a creation (its row built by the caller) or another grouped event. */
  add(event: StoredEvent, row?: ActivityRow): void {
    this.#size++;
    this.#first ??= event;
    if (row) {
      if (!this.#inserted.has(row.id)) this.#inserted.set(row.id, row);
      this.#touched.add(row.id);
      return;
    }
    switch (event.type) {
      case "KudosGiven": {
        const d = event.data;
        const key = `${d.activityId}:${d.athleteId}`;
        if (!this.#kudos.has(key)) {
          this.#kudos.set(key, { activity_id: d.activityId, athlete_id: d.athleteId, position: event.position });
        }
        this.#kudosCounted.add(d.activityId);
        this.#touched.add(d.activityId);
        return;
      }
      case "CommentAdded": {
        const d = event.data;
        if (!this.#comments.has(d.commentId)) {
          this.#comments.set(d.commentId, {
            id: d.commentId,
            activity_id: d.activityId,
            athlete_id: d.athleteId,
            text: d.text,
            created_at: event.recordedAt,
            position: event.position,
          });
        }
        this.#commentsCounted.add(d.activityId);
        this.#touched.add(d.activityId);
        return;
      }
      case "CommentDeleted": {
        const d = event.data;
        this.#deletedComments.add(d.commentId);
        this.#commentsCounted.add(d.activityId);
        this.#touched.add(d.activityId);
        return;
      }
      case "ActivityUpdated":
        this.#edit(event);
        return;
    }
  }

  #edit(event: StoredEventOfType<"ActivityUpdated">): void {
    const d: Record<string, unknown> = event.data;
    const id = event.data.activityId;
    this.#touched.add(id);
    const edit = this.#edits.get(id) ?? { id, set: {}, facts: {} };
    for (const [key, column] of Object.entries(UPDATE_COLUMNS)) {
      if (key in d && d[key] !== undefined) edit.set[column] = d[key];
    }
    for (const key of FACT_UPDATES) if (d[key] !== undefined) edit.facts[key] = d[key];
    if (Object.keys(edit.set).length || Object.keys(edit.facts).length) this.#edits.set(id, edit);
  }

  async flush(tx: Queryable): Promise<void> {
    if (this.#size === 0) return;
    if (this.#inserted.size) {
      await tx.query(
        `insert into activities (id, athlete_id, upload_id, external_id, name, type, description,
            start_date, start_epoch, start_date_local, timezone, distance, moving_time, elapsed_time,
            total_elevation_gain, visibility, commute, trainer, manual, facts, recorded_position)
         select r.* from jsonb_to_recordset($1::jsonb) as r(id bigint, athlete_id bigint, upload_id bigint,
            external_id text, name text, type text, description text, start_date text, start_epoch bigint,
            start_date_local text, timezone text, distance double precision, moving_time integer,
            elapsed_time integer, total_elevation_gain double precision, visibility text, commute boolean,
            trainer boolean, manual boolean, facts jsonb, recorded_position bigint)
         on conflict (id) do nothing`,
        [JSON.stringify([...this.#inserted.values()])],
      );
    }
    if (this.#kudos.size) {
      await tx.query(
        `insert into activity_kudos (activity_id, athlete_id, position)
         select * from unnest($1::bigint[], $2::bigint[], $3::bigint[]) on conflict do nothing`,
        columns([...this.#kudos.values()], ["activity_id", "athlete_id", "position"]),
      );
    }
    if (this.#comments.size) {
      await tx.query(
        `insert into activity_comments (id, activity_id, athlete_id, text, created_at, position)
         select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::bigint[])
         on conflict do nothing`,
        columns([...this.#comments.values()], ["id", "activity_id", "athlete_id", "text", "created_at", "position"]),
      );
    }
    if (this.#deletedComments.size) {
      const gone = await tx.query<{ activity_id: string }>(
        "delete from activity_comments where id = any($1::bigint[]) returning activity_id",
        [[...this.#deletedComments]],
      );
      for (const { activity_id } of gone) this.#commentsCounted.add(Number(activity_id));
    }
    if (this.#edits.size) {
      // Each edit as a jsonb object of the columns it sets (present keys only) and its fact keys.
      await tx.query(
        `update activities a set
           name = case when u.s ? 'name' then u.s->>'name' else a.name end,
           type = case when u.s ? 'type' then u.s->>'type' else a.type end,
           visibility = case when u.s ? 'visibility' then u.s->>'visibility' else a.visibility end,
           commute = case when u.s ? 'commute' then (u.s->>'commute')::boolean else a.commute end,
           trainer = case when u.s ? 'trainer' then (u.s->>'trainer')::boolean else a.trainer end,
           gear_id = case when u.s ? 'gear_id' then u.s->>'gear_id' else a.gear_id end,
           description = case when u.s ? 'description' then u.s->>'description' else a.description end,
           facts = case when u.f = '{}'::jsonb then a.facts else a.facts || u.f end
          from jsonb_to_recordset($1::jsonb) as u(id bigint, s jsonb, f jsonb)
         where a.id = u.id`,
        [JSON.stringify([...this.#edits.values()].map((e) => ({ id: e.id, s: e.set, f: e.facts })))],
      );
    }
    if (this.#kudosCounted.size || this.#commentsCounted.size) {
      // Both counters in one statement; each only for the activities whose kudos / comments changed.
      await tx.query(
        `update activities a set
           kudos_count = case when a.id = any($1::bigint[])
             then (select count(*) from activity_kudos k where k.activity_id = a.id) else a.kudos_count end,
           comment_count = case when a.id = any($2::bigint[])
             then (select count(*) from activity_comments c where c.activity_id = a.id) else a.comment_count end
          where a.id = any($1::bigint[]) or a.id = any($2::bigint[])`,
        [[...this.#kudosCounted], [...this.#commentsCounted]],
      );
    }
  }
}

/** Rows as one array per column (for unnest). */
function columns<T>(rows: T[], keys: (keyof T)[]): unknown[][] {
  return keys.map((k) => rows.map((r) => r[k]));
}
