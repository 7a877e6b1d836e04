import type { Queryable } from "../../events/db/types.ts";
import { clubsOfAthlete } from "../../projections/clubs/queries.ts";
import { summaryClub } from "./represent.ts";

/** The detailed athlete's `clubs`: summary clubs with the athlete's membership fields. */
export async function athleteClubs(db: Queryable, athleteId: number) {
  return {
    clubs: (await clubsOfAthlete(db, athleteId)).map((c) => ({
      ...summaryClub(c),
      membership: "member",
      admin: c.admin,
      owner: c.owner,
    })),
  };
}
