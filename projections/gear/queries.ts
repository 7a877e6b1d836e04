import type { Queryable } from "../../events/db/types.ts";

/** Gear (the gear read model) with its distance, kept by the projection as activities name it. */
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
  /** Replace at this distance (metres); null: no reminder. */
  reminder_distance: number | null;
  /** numeric in the read model: may arrive as a string. */
  distance: number | string;
}

/** The columns of a GearRow over alias `g` (also for queries joining gear to something else). */
export const GEAR_COLUMNS = `g.id, g.athlete_id, g.kind, g.name, g.nickname, g.brand_name, g.model_name,
    g.description, g.frame_type, g.weight, g.is_primary, g.retired, g.reminder_distance, g.distance`;

export async function findGear(db: Queryable, id: string): Promise<GearRow | undefined> {
  const [row] = await db.query<GearRow>(`select ${GEAR_COLUMNS} from gear g where g.id = $1`, [id]);
  return row;
}

export async function gearOfAthlete(db: Queryable, athleteId: number): Promise<GearRow[]> {
  return await db.query<GearRow>(`select ${GEAR_COLUMNS} from gear g where g.athlete_id = $1 order by g.position`, [
    athleteId,
  ]);
}
