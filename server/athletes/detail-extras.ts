import type { Queryable } from "../../events/db/types.ts";

/**
 * Extra parts of the detailed athlete contributed by other resource families (clubs, gear): listed
 * in server/wiring.ts (`athleteExtensions`) and carried by the platform, never pushed at load.
 */
export type AthleteDetailExtension = (db: Queryable, athleteId: number) => Promise<Record<string, unknown>>;

/** The extensions' parts of an athlete's detailed representation (only ever for their own token). */
export async function athleteDetailExtras(
  platform: { db: Queryable; athleteExtensions: readonly AthleteDetailExtension[] },
  athleteId: number,
): Promise<Record<string, unknown>> {
  const extras: Record<string, unknown> = {};
  for (const extend of platform.athleteExtensions) Object.assign(extras, await extend(platform.db, athleteId));
  return extras;
}
