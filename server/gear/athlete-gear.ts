import type { Queryable } from "../../events/db/types.ts";
import { gearOfAthlete } from "../../projections/gear/queries.ts";
import { summaryGear } from "./represent.ts";

/** The detailed athlete's bikes and shoes. */
export async function athleteGear(db: Queryable, athleteId: number) {
  const gear = await gearOfAthlete(db, athleteId);
  return {
    bikes: gear.filter((g) => g.kind === "bike").map(summaryGear),
    shoes: gear.filter((g) => g.kind === "shoe").map(summaryGear),
  };
}
