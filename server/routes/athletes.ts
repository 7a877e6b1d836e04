import { z } from "zod";
import { notFound } from "../http/errors.ts";
import { zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { detailedAthlete, findAthlete, summaryAthlete } from "../representations/athlete.ts";

/** Extra parts of the detailed athlete contributed by other resource families (clubs, gear, follows). */
export type AthleteDetailExtension = (
  db: import("../../events/db/types.ts").Queryable,
  athleteId: number,
) => Promise<Record<string, unknown>>;

export const athleteDetailExtensions: AthleteDetailExtension[] = [];

export const athleteRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athlete",
    summary: "The authenticated athlete (detailed representation).",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    async handler({ platform, auth }) {
      const row = await findAthlete(platform.db, auth.athleteId);
      if (!row) throw notFound("Athlete");
      const extras: Record<string, unknown> = {};
      for (const extend of athleteDetailExtensions) Object.assign(extras, await extend(platform.db, auth.athleteId));
      return { ...detailedAthlete(row), ...extras };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id",
    summary: "An athlete by id (detailed for oneself, summary for others).",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    async handler({ platform, auth, params }) {
      const row = await findAthlete(platform.db, params.id);
      if (!row) throw notFound("Athlete");
      if (row.id === auth.athleteId) {
        const extras: Record<string, unknown> = {};
        for (const extend of athleteDetailExtensions) Object.assign(extras, await extend(platform.db, auth.athleteId));
        return { ...detailedAthlete(row), ...extras };
      }
      return summaryAthlete(row);
    },
  }),
];
