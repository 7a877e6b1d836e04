import { z } from "zod";
import { notFound } from "../http/errors.ts";
import { zBool, zFloat } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { findGear } from "../../projections/gear/queries.ts";
import { MAX_REMINDER_DISTANCE } from "../../events/gear/events.ts";
import { requestActor } from "../actor.ts";
import { updateGear } from "./commands.ts";
import { detailedGear } from "./represent.ts";
import { zDetailedGear } from "./schema.ts";

const gearParams = z.object({ id: z.string().regex(/^[bg]\d{1,18}$/) });
const optionalText = (max: number) =>
  z.string().trim().max(max).optional().transform((v) => (v === undefined ? undefined : v ? v : null));

export const gearRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/gear/:id",
    response: zDetailedGear,
    summary: "A bike (b…) or a pair of shoes (g…), detailed.",
    tag: "Gear",
    auth: "token",
    resource: "Gear",
    params: gearParams,
    async handler({ platform, params }) {
      const gear = await findGear(platform.db, params.id);
      if (!gear) throw notFound("Gear");
      return detailedGear(gear);
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v3/gear/:id",
    response: zDetailedGear,
    summary:
      "Extension: change one of the authenticated athlete's bikes or shoes — retire it, set when to replace it — answering the detailed gear.",
    description:
      `Form or JSON fields, each optional (left out: unchanged): retired (1/0: retired gear keeps its distance, is marked retired, leaves the pickers and is never primary), reminder_distance (metres, above 0 and at most ${MAX_REMINDER_DISTANCE}: the answer's reminder_reached turns true once the distance reaches it; 0 or empty clears it), name (1–255), nickname, brand_name, model_name, description, primary (1/0; not for retired gear: 400 {Gear, primary, retired}). 404 for another athlete's or unknown gear.`,
    tag: "Gear",
    auth: "token",
    permission: "write",
    resource: "Gear",
    params: gearParams,
    body: z.object({
      name: z.string().trim().min(1).max(255).optional(),
      nickname: optionalText(255),
      brand_name: optionalText(255),
      model_name: optionalText(255),
      description: optionalText(2000),
      primary: zBool.optional(),
      retired: zBool.optional(),
      reminder_distance: z.union([z.literal("").transform(() => 0), zFloat]).pipe(
        z.number().min(0).max(MAX_REMINDER_DISTANCE),
      ).nullable().optional(),
    }),
    async handler({ platform, auth, params, body, requestId }) {
      await updateGear(platform, auth.athleteId, params.id, {
        name: body.name,
        nickname: body.nickname,
        brandName: body.brand_name,
        modelName: body.model_name,
        description: body.description,
        primary: body.primary,
        retired: body.retired,
        reminderDistance: body.reminder_distance,
      }, requestActor(auth, requestId));
      const gear = await findGear(platform.db, params.id);
      if (!gear) throw notFound("Gear");
      return detailedGear(gear);
    },
  }),
];
