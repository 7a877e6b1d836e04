import type { Queryable } from "../../events/db/types.ts";

/** Gear (gear read model) with its distance: the sum of the distances of the athlete's activities that use it. */
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
