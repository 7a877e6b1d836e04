import { z } from "zod";
import { findGear } from "../../projections/gear/queries.ts";
import { addGear } from "./commands.ts";
import { requestActor } from "../actor.ts";
import { notFound } from "../http/errors.ts";
import { zBool, zFloat, zInt } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { detailedGear } from "./represent.ts";

/** Strava's API has no way to create gear; the web app's settings page needs one (an extension). */
const optionalText = (max: number) => z.string().trim().max(max).optional().transform((v) => (v ? v : null));

export const zDetailedGear = z.object({
  id: z.string(),
  resource_state: z.number().int(),
  primary: z.boolean(),
  name: z.string(),
  distance: z.number(),
  brand_name: z.string().nullable(),
  model_name: z.string().nullable(),
  description: z.string().nullable(),
  frame_type: z.number().int().nullable().optional(),
  weight: z.number().nullable().optional(),
}).passthrough();

export const gearCreateRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/gear",
    summary:
      "Extension: add a bike or a pair of shoes to the authenticated athlete's gear. 201 with the detailed gear.",
    description:
      "Form or JSON fields: kind (bike | shoe, required), name (1–255, required), nickname, brand_name, model_name, description, frame_type (bikes: 1 MTB, 2 cross, 3 road, 4 TT), weight (bikes, kg, 0–100), primary. Bikes get ids b…, shoes g….",
    tag: "Gear",
    auth: "token",
    permission: "write",
    resource: "Gear",
    status: 201,
    body: z.object({
      kind: z.enum(["bike", "shoe"]),
      name: z.string().trim().min(1).max(255),
      nickname: optionalText(255),
      brand_name: optionalText(255),
      model_name: optionalText(255),
      description: optionalText(2000),
      frame_type: zInt.optional(),
      weight: zFloat.optional(),
      primary: zBool.optional(),
    }),
    response: zDetailedGear,
    async handler({ platform, auth, body, requestId }) {
      // Recorded with the request's application and id (issue 30); "api" stays its source.
      const id = await addGear(platform, {
        athleteId: auth.athleteId,
        kind: body.kind,
        name: body.name,
        nickname: body.nickname,
        brandName: body.brand_name,
        modelName: body.model_name,
        description: body.description,
        frameType: body.frame_type ?? null,
        weight: body.weight ?? null,
        primary: body.primary ?? false,
      }, { ...requestActor(auth, requestId), source: "api" });
      const gear = await findGear(platform.db, id);
      if (!gear) throw notFound("Gear");
      return detailedGear(gear);
    },
  }),
];
