import { z } from "zod";
import { DomainError } from "../../events/decider.ts";
import { addNativePhoto } from "./commands.ts";
import { requestActor } from "../actor.ts";
import { ownedActivity } from "../activities/access.ts";
import { MAX_PHOTO_BYTES } from "../images/kinds.ts";
import { MAX_CAPTION } from "../activities/input.ts";
import { MAX_PHOTO_PIXELS, RENDITION_SIZES } from "../images/renditions.ts";
import { getBlob } from "../blobs.ts";
import { checkImage } from "../images/header.ts";
import { stripMetadata } from "../images/metadata.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { zBool, zFloat, zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { nativePhoto, photosOf } from "../../projections/activities/queries.ts";
import { photoRepresentation } from "./represent.ts";
import { zPhoto, zPhotoImage, zPhotoList } from "../activities/schema.ts";

const zFile = z.custom<Blob>((v) => v instanceof Blob, { message: "a file" });

export const activityPhotoRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/photos",
    response: zPhotoList,
    summary:
      "Photos of an activity (owner only). photo_sources=true returns both kinds; without it only external photos.",
    description:
      "size (default 0): each photo's urls hold the best match — the smallest rendition larger than size on at least one side.",
    tag: "Activities",
    auth: "token",
    resource: "Photo",
    params: z.object({ id: zNumId }),
    query: z.object({
      photo_sources: zBool.optional(),
      size: zInt.pipe(z.number().int().min(0).max(100000)).optional(),
    }),
    async handler({ platform, auth, params, query }) {
      await ownedActivity(platform.db, params.id, auth);
      const photos = await photosOf(platform.db, params.id, query.photo_sources ? [1, 2] : [2]);
      return photos.map((p) => photoRepresentation(platform.config.publicUrl, p, query.size ?? 0));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/activities/:id/photos",
    response: zPhoto,
    summary: "Add a native photo to one's activity (multipart: file, caption, optional lat/lng). 201 with the photo.",
    description:
      `file: a JPEG, PNG or GIF image (checked by its bytes and decoded), at most ${MAX_PHOTO_BYTES} bytes and ${MAX_PHOTO_PIXELS} pixels; ` +
      `caption ≤ ${MAX_CAPTION}. Stored with resized renditions of ${
        RENDITION_SIZES.join(", ")
      } px on the long side (those smaller than the original) and the original.`,
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Photo",
    params: z.object({ id: zNumId }),
    body: z.object({
      file: zFile,
      caption: z.string().max(MAX_CAPTION).optional(),
      lat: zFloat.pipe(z.number().min(-90).max(90)).optional(),
      lng: zFloat.pipe(z.number().min(-180).max(180)).optional(),
    }),
    status: 201,
    async handler({ platform, auth, params, body, requestId }) {
      await ownedActivity(platform.db, params.id, auth);
      if (body.file.size > MAX_PHOTO_BYTES) throw badRequest("Photo", "file", "too large");
      const bytes = new Uint8Array(await body.file.arrayBuffer());
      // Kind and decoding budget from the header alone, before anything is decoded (images/header.ts).
      const check = checkImage(bytes);
      if (!check.ok) throw badRequest("Photo", "file", check.code);
      if ((body.lat === undefined) !== (body.lng === undefined)) {
        throw badRequest("Photo", body.lat === undefined ? "lat" : "lng", "missing");
      }
      let uniqueId: string;
      try {
        uniqueId = await addNativePhoto(platform, {
          activityId: params.id,
          athleteId: auth.athleteId,
          bytes,
          caption: body.caption,
          location: body.lat !== undefined && body.lng !== undefined ? [body.lat, body.lng] : null,
        }, requestActor(auth, requestId));
      } catch (error) {
        if (error instanceof DomainError && error.resource === "Photo") {
          throw badRequest("Photo", error.field, error.code);
        }
        throw error;
      }
      const photo = (await photosOf(platform.db, params.id, [1])).find((p) =>
        p.source === 1 && p.data.uniqueId === uniqueId
      );
      if (!photo) throw notFound("Photo");
      return photoRepresentation(platform.config.publicUrl, photo, 0);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/photos/:unique_id/:size",
    response: zPhotoImage,
    summary: "The bytes of a native photo rendition (the URLs in photo urls maps; unguessable ids).",
    tag: "Activities",
    auth: "none",
    resource: "Photo",
    params: z.object({ unique_id: z.string().regex(/^[0-9A-F-]{36}$/), size: zInt.pipe(z.number().int().min(0)) }),
    async handler({ c, platform, params }) {
      const data = await nativePhoto(platform.db, params.unique_id);
      if (!data) throw notFound("Photo");
      const rendition = data.renditions.find((r) => r.size === params.size);
      if (!rendition) throw notFound("Photo", "size");
      // The bytes behind a URL never change (content-addressed): cache for a year, revalidate by hash.
      const headers = {
        "cache-control": "private, max-age=31536000, immutable",
        etag: `"${rendition.sha256}"`,
      };
      if (c.req.header("if-none-match")?.split(",").some((t) => t.trim().replace(/^W\//, "") === headers.etag)) {
        return new Response(null, { status: 304, headers });
      }
      const stored = await getBlob(platform.db, rendition.sha256);
      if (!stored) throw notFound("Photo");
      // Never where it was taken: photos stored before originals were stripped carry their EXIF still.
      const bytes = stripMetadata(stored, rendition.contentType);
      return new Response(new Uint8Array(bytes) as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { ...headers, "content-type": rendition.contentType, "content-length": String(bytes.length) },
      });
    },
  }),
];
