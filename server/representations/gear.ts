import type { Queryable } from "../../events/db/types.ts";

export interface GearRow {
  id: string;
  athlete_id: number;
  kind: "bike" | "shoe";
  name: string;
  nickname: string | null;
  brand_name: string | null;
  model_name: string | null;
  description: string | null;
  frame_type: number | null;
  weight: number | null;
  is_primary: boolean;
  retired: boolean;
  distance: number;
}

/** Gear with its distance: the sum of the distances of the athlete's activities that use it. */
const GEAR_SELECT = `select g.id, g.athlete_id, g.kind, g.name, g.nickname, g.brand_name, g.model_name,
    g.description, g.frame_type, g.weight, g.is_primary, g.retired,
    coalesce((select sum(a.distance) from activities a where a.gear_id = g.id and a.athlete_id = g.athlete_id), 0) as distance
  from gear g`;

export async function findGear(db: Queryable, id: string): Promise<GearRow | undefined> {
  const [row] = await db.query<GearRow>(`${GEAR_SELECT} where g.id = $1`, [id]);
  return row;
}

export async function gearOfAthlete(db: Queryable, athleteId: number): Promise<GearRow[]> {
  return await db.query<GearRow>(`${GEAR_SELECT} where g.athlete_id = $1 order by g.position`, [athleteId]);
}

/** The spec's gear summary (id, primary, name, distance, resource_state 2) plus the real service's extras. */
export function summaryGear(row: GearRow) {
  const distance = Number(row.distance);
  return {
    id: row.id,
    primary: row.is_primary,
    name: row.name,
    nickname: row.nickname,
    resource_state: 2,
    retired: row.retired,
    distance,
    converted_distance: Math.round(distance / 100) / 10,
  };
}

/** Detailed gear (resource_state 3, reference §4.3); bikes add frame_type and weight. */
export function detailedGear(row: GearRow) {
  const base = {
    ...summaryGear(row),
    resource_state: 3,
    brand_name: row.brand_name,
    model_name: row.model_name,
    description: row.description,
  };
  return row.kind === "bike" ? { ...base, frame_type: row.frame_type, weight: row.weight === null ? null : Number(row.weight) } : base;
}
