import { z } from "zod";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { removeAthletePicture, setAthletePicture } from "./commands.ts";
import { athleteAvatarUrl } from "./url.ts";
import { requestActor } from "../actor.ts";
import { notFound } from "../http/errors.ts";
import { defineRoute } from "../http/route.ts";
import type { Platform } from "../platform.ts";

/** Extension: the authenticated athlete's profile picture (Strava's API has no picture upload). */
const zFile = z.custom<Blob>((v) => v instanceof Blob, { message: "a file" });
const zPicture = z.object({ profile: z.string(), profile_medium: z.string(), custom: z.boolean() });

async function answer(platform: Platform, athleteId: number, custom: boolean) {
  if (!(await findAthlete(platform.db, athleteId))) throw notFound("Athlete");
  return {
    profile: athleteAvatarUrl(athleteId, "large"),
    profile_medium: athleteAvatarUrl(athleteId, "medium"),
    custom,
  };
}

export const athletePictureRoutes = [
  defineRoute({
    method: "PUT",
    path: "/v3/athlete/picture",
    summary:
      "Extension: set the authenticated athlete's profile picture (multipart: file, a JPEG, PNG or GIF of at most 10 MB).",
    description:
      "The picture is cropped to its centre square and scaled to 124 px (profile) and 62 px (profile_medium); both URLs keep their address and now answer it. 400 {Athlete, file, invalid | too large} for anything else.",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Athlete",
    body: z.object({ file: zFile }),
    response: zPicture,
    async handler({ platform, auth, body, requestId }) {
      const bytes = new Uint8Array(await body.file.arrayBuffer());
      await setAthletePicture(platform, auth.athleteId, bytes, requestActor(auth, requestId));
      return await answer(platform, auth.athleteId, true);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/athlete/picture",
    summary:
      "Extension: remove the authenticated athlete's profile picture (profile and profile_medium show the default identicon again).",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Athlete",
    response: zPicture,
    async handler({ platform, auth, requestId }) {
      await removeAthletePicture(platform, auth.athleteId, requestActor(auth, requestId));
      return await answer(platform, auth.athleteId, false);
    },
  }),
];
