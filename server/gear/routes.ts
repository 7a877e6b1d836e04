import { z } from "zod";
import { notFound } from "../http/errors.ts";
import { defineRoute } from "../http/route.ts";
import { findGear, gearOfAthlete } from "../../projections/queries/gear-with-distance.ts";
import { detailedGear, summaryGear } from "./represent.ts";
import { type AthleteDetailExtension, athleteDetailExtensions } from "../athletes/routes.ts";
import { zDetailedGear } from "../response-schemas.ts";

export const gearRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/gear/:id",
    response: zDetailedGear,
    summary: "A bike (b…) or a pair of shoes (g…), detailed.",
    tag: "Gear",
    auth: "token",
    resource: "Gear",
    params: z.object({ id: z.string().regex(/^[bg]\d{1,18}$/) }),
    async handler({ platform, params }) {
      const gear = await findGear(platform.db, params.id);
      if (!gear) throw notFound("Gear");
      return detailedGear(gear);
    },
  }),
];

/** bikes and shoes of the detailed athlete. */
export const gearAthleteExtension: AthleteDetailExtension = async (db, athleteId) => {
  const gear = await gearOfAthlete(db, athleteId);
  return {
    bikes: gear.filter((g) => g.kind === "bike").map(summaryGear),
    shoes: gear.filter((g) => g.kind === "shoe").map(summaryGear),
  };
};

athleteDetailExtensions.push(gearAthleteExtension);
