import { z } from "zod";
import { zFloat, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { addPrivacyZone, removePrivacyZone } from "./commands.ts";
import { privacyZoneJson } from "./represent.ts";
import { requestActor } from "../actor.ts";
import { privacyZonesOf } from "../privacy/privacy-zones.ts";
import { zPrivacyZone, zPrivacyZoneList } from "../athletes/schema.ts";

/**
 * Extension (not in the spec): the authenticated athlete's privacy zones. Reading them needs
 * view_private (a zone tells where the athlete lives); changing them needs write.
 */
export const privacyZoneRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athlete/privacy_zones",
    response: zPrivacyZoneList,
    summary: "Extension: the authenticated athlete's privacy zones {id, lat, lng, radius (m), created_at}.",
    tag: "Athlete",
    auth: "token",
    permission: "view_private",
    resource: "PrivacyZone",
    async handler({ platform, auth }) {
      return (await privacyZonesOf(platform.db, auth.athleteId)).map(privacyZoneJson);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/athlete/privacy_zones",
    response: zPrivacyZone,
    summary:
      "Extension: add a privacy zone (lat, lng, radius in metres 1–20000); positions inside are hidden from others and from heatmaps.",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "PrivacyZone",
    status: 201,
    body: z.object({
      lat: zFloat.pipe(z.number().min(-90).max(90)),
      lng: zFloat.pipe(z.number().min(-180).max(180)),
      radius: zFloat.pipe(z.number().min(1).max(20_000)),
    }),
    async handler({ platform, auth, body, requestId }) {
      const row = await addPrivacyZone(platform, {
        athleteId: auth.athleteId,
        lat: body.lat,
        lng: body.lng,
        radiusM: body.radius,
      }, requestActor(auth, requestId));
      return privacyZoneJson(row);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/athlete/privacy_zones/:id",
    summary: "Extension: remove one of one's privacy zones (204).",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "PrivacyZone",
    params: z.object({ id: zNumId }),
    status: 204,
    async handler({ platform, auth, params, requestId }) {
      await removePrivacyZone(platform, auth.athleteId, params.id, requestActor(auth, requestId));
      return null;
    },
  }),
];
