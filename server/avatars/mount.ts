import { type Context, Hono } from "hono";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { findClub } from "../../projections/clubs/queries.ts";
import { athletePicture } from "../../projections/athlete-pictures/queries.ts";
import { getBlob } from "../blobs.ts";
import { type AvatarSize, clubCoverPng, type CoverSize, identiconPng } from "./identicon.ts";

/** GET /avatars/athletes/:id/(large|medium).png: the uploaded picture, else the identicon (ETag revalidated). */
async function athleteAvatar(c: Context, platform: Platform): Promise<Response> {
  const id = Number(c.req.param("id"));
  const file = c.req.param("file");
  // Own names only ("constructor" is not a size).
  const size = file === "large.png" ? "large" : file === "medium.png" ? "medium" : undefined;
  const notFound = () =>
    c.json({ message: "Record Not Found", errors: [{ resource: "Athlete", field: "id", code: "invalid" }] }, 404);
  if (!Number.isSafeInteger(id) || id <= 0 || !size) return notFound();
  if (!(await findAthlete(platform.db, id))) return notFound();
  const picture = await athletePicture(platform.db, id);
  const sha = picture ? (size === "large" ? picture.large : picture.medium) : null;
  const etag = `"${sha ?? `identicon-${id}-${size}`}"`;
  const headers = { "content-type": "image/png", "cache-control": "public, max-age=60, must-revalidate", etag };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
  const bytes = sha ? await getBlob(platform.db, sha) : undefined;
  return c.body((bytes ?? identiconPng(id, size as AvatarSize)) as Uint8Array<ArrayBuffer>, 200, headers);
}

const CLUB_PICTURES: Record<string, AvatarSize | CoverSize> = {
  "large.png": "large",
  "medium.png": "medium",
  "cover.png": "cover",
  "cover_small.png": "cover_small",
};

/**
 * GET /avatars/clubs/:id/(large|medium|cover|cover_small).png: a club's pictures — SummaryClub
 * profile / profile_medium (its identicon) and cover_photo / cover_photo_small (its cover band).
 */
async function clubAvatar(c: Context, platform: Platform): Promise<Response> {
  const id = Number(c.req.param("id"));
  const file = c.req.param("file");
  const size = file && Object.hasOwn(CLUB_PICTURES, file) ? CLUB_PICTURES[file] : undefined;
  const notFound = () =>
    c.json({ message: "Record Not Found", errors: [{ resource: "Club", field: "id", code: "invalid" }] }, 404);
  if (!Number.isSafeInteger(id) || id <= 0 || !size) return notFound();
  if (!(await findClub(platform.db, id))) return notFound();
  const headers = { "content-type": "image/png", "cache-control": "public, max-age=86400" };
  const png = size === "cover" || size === "cover_small" ? clubCoverPng(id, size) : identiconPng(id, size, "club");
  return c.body(png as Uint8Array<ArrayBuffer>, 200, headers);
}

/**
 * GET /avatars/athletes/:id/large.png and medium.png: the athlete's picture (124 and 62 px PNG) —
 * the one they uploaded (PUT /v3/athlete/picture) or else their identicon — for <img> tags without
 * a token; 404 for an unknown athlete. GET /avatars/clubs/:id/large.png, medium.png, cover.png and cover_small.png: a club's. The address stays the same when the picture changes, so
 * browsers revalidate it (ETag) instead of keeping it for a day. Mounted at `/avatars`.
 */
export function avatarPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/athletes/:id/:file", (c) => athleteAvatar(c, platform));
  pages.get("/clubs/:id/:file", (c) => clubAvatar(c, platform));
  return pages;
}
