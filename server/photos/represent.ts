import type { PhotoRow } from "../../projections/activities/queries.ts";
import { urlsFor } from "../activities/photos-summary.ts";

export type { ExternalPhotoData, NativePhotoData, PhotoRow, Rendition } from "../../projections/activities/queries.ts";

/** A photo of the activity photos endpoint, in the shape of its kind (spec, Photo). */
export function photoRepresentation(publicUrl: string, photo: PhotoRow, size: number) {
  if (photo.source === 1) {
    const d = photo.data;
    return {
      unique_id: d.uniqueId,
      activity_id: d.activityId,
      resource_state: 2,
      urls: urlsFor(publicUrl, photo, [size]),
      caption: d.caption,
      source: 1,
      uploaded_at: d.uploadedAt,
      created_at: d.createdAt,
      location: d.location,
    };
  }
  const d = photo.data;
  return {
    id: d.photoId,
    activity_id: d.activityId,
    resource_state: 2,
    ref: d.ref,
    urls: urlsFor(publicUrl, photo, [size]),
    uid: d.uid,
    caption: d.caption,
    type: "ExternalPhoto",
    source: 2,
    uploaded_at: d.uploadedAt,
    created_at: d.createdAt,
    location: d.location,
  };
}
