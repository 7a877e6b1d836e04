import { z } from "zod";
import { notFound } from "../http/errors.ts";
import { defineRoute } from "../http/route.ts";
import { findGear } from "../../projections/queries/gear-with-distance.ts";
import { detailedGear } from "./represent.ts";
import { zDetailedGear } from "./schema.ts";

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
