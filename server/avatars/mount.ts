import type { Hono } from "hono";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { type AvatarSize, identiconPng } from "./identicon.ts";

/**
 * GET /avatars/athletes/:id/large.png and medium.png: the athlete's default avatar (124 and 62 px
 * PNG), for <img> tags without a token; 404 for an unknown athlete.
 */
export function mountAvatars(app: Hono, platform: Platform) {
  app.get("/avatars/athletes/:id/:file", async (c) => {
    const id = Number(c.req.param("id"));
    const size = ({ "large.png": "large", "medium.png": "medium" } as const)[c.req.param("file")];
    const notFound = () => c.json({ message: "Record Not Found", errors: [{ resource: "Athlete", field: "id", code: "invalid" }] }, 404);
    if (!Number.isSafeInteger(id) || id <= 0 || !size) return notFound();
    if (!(await findAthlete(platform.db, id))) return notFound();
    return c.body(identiconPng(id, size) as Uint8Array<ArrayBuffer>, 200, {
      "content-type": "image/png",
      "cache-control": "public, max-age=86400",
    });
  });
}
