import type { Queryable } from "../../events/db/types.ts";
import { athleteClubs } from "../clubs/athlete-clubs.ts";
import { athleteGear } from "../gear/athlete-gear.ts";

/** Extra parts of the detailed athlete contributed by other resource families (clubs, gear). */
export type AthleteDetailExtension = (db: Queryable, athleteId: number) => Promise<Record<string, unknown>>;

/** The families that add to the detailed athlete, one line each (listed here, never pushed at load). */
export const athleteDetailExtensions: readonly AthleteDetailExtension[] = [
  athleteGear,
  athleteClubs,
];

/** The extensions' parts of an athlete's detailed representation (only ever for their own token). */
export async function athleteDetailExtras(db: Queryable, athleteId: number): Promise<Record<string, unknown>> {
  const extras: Record<string, unknown> = {};
  for (const extend of athleteDetailExtensions) Object.assign(extras, await extend(db, athleteId));
  return extras;
}
