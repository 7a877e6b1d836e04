import type { Queryable } from "../events/db/types.ts";

/** Kinds of integer ids the platform hands out, each from its own sequence. */
export const ID_KINDS = [
  "athlete",
  "application",
  "activity",
  "upload",
  "comment",
  "photo",
  "lap",
  "segment",
  "club",
  "challenge",
  "gear",
  "heatmap",
  "push_subscription",
  "privacy_zone",
  "job",
  "route",
  "goal",
] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** One sequence per kind of ID_KINDS, in its order (a new kind needs its line here too): SQL the server runs is written out, never built. */
export const ID_SCHEMA = `
create sequence if not exists public.ids_athlete;
create sequence if not exists public.ids_application;
create sequence if not exists public.ids_activity;
create sequence if not exists public.ids_upload;
create sequence if not exists public.ids_comment;
create sequence if not exists public.ids_photo;
create sequence if not exists public.ids_lap;
create sequence if not exists public.ids_segment;
create sequence if not exists public.ids_club;
create sequence if not exists public.ids_challenge;
create sequence if not exists public.ids_gear;
create sequence if not exists public.ids_heatmap;
create sequence if not exists public.ids_push_subscription;
create sequence if not exists public.ids_privacy_zone;
create sequence if not exists public.ids_job;
create sequence if not exists public.ids_route;
create sequence if not exists public.ids_goal;
`;

/** Next id of a kind. Ids are recorded in events, so a replay never draws them again. */
export async function nextId(db: Queryable, kind: IdKind): Promise<number> {
  const [row] = await db.query<{ id: number }>("select nextval($1::regclass) as id", [`public.ids_${kind}`]);
  return Number(row.id);
}

/** Moves a sequence past an id seen in imported events. */
export async function advanceId(db: Queryable, kind: IdKind, atLeast: number): Promise<void> {
  await db.query(
    `select setval($2::regclass, greatest($1::bigint, (select coalesce(last_value, start_value) from pg_sequences
       where schemaname = 'public' and sequencename = $3)))`,
    [atLeast, `public.ids_${kind}`, `ids_${kind}`],
  );
}

/** Copies every id sequence's state into another store, inside the copy's transaction (cli copy-store). */
export async function copyIdSequences(source: Queryable, tx: Queryable): Promise<void> {
  for (const kind of ID_KINDS) {
    // pg_sequences: last_value is null until the sequence is first called.
    const [seq] = await source.query<{ last_value: number; is_called: boolean }>(
      `select coalesce(last_value, start_value) as last_value, last_value is not null as is_called from pg_sequences
        where schemaname = 'public' and sequencename = $1`,
      [`ids_${kind}`],
    );
    await tx.query("select setval($1::regclass, $2::bigint, $3)", [
      `public.ids_${kind}`,
      seq.last_value,
      seq.is_called,
    ]);
  }
}
