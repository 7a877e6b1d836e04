import type { Queryable } from "../events/db/types.ts";

/** Kinds of integer ids the platform hands out, each from its own sequence. */
export const ID_KINDS = [
  "athlete", "application", "activity", "upload", "comment", "photo", "lap", "segment",
  "club", "challenge", "gear", "heatmap", "push_subscription", "privacy_zone", "job", "route",
] as const;
export type IdKind = (typeof ID_KINDS)[number];

export function idSchema(): string {
  return ID_KINDS.map((k) => `create sequence if not exists public.ids_${k};`).join("\n");
}

/** Next id of a kind. Ids are recorded in events, so a replay never draws them again. */
export async function nextId(db: Queryable, kind: IdKind): Promise<number> {
  const [row] = await db.query<{ id: number }>(`select nextval('public.ids_${kind}') as id`);
  return Number(row.id);
}

/** Moves a sequence past an id seen in imported events. */
export async function advanceId(db: Queryable, kind: IdKind, atLeast: number): Promise<void> {
  await db.query(
    `select setval('public.ids_${kind}', greatest($1::bigint, (select last_value from public.ids_${kind})))`,
    [atLeast],
  );
}
