import type { PhotoRow, Rendition } from "../../projections/activities/queries.ts";

/** The best rendition for a requested size: the smallest larger than it, else the largest. */
export function bestRendition(renditions: readonly Rendition[], size: number): Rendition {
  const sorted = [...renditions].sort((a, b) => Math.max(a.width, a.height) - Math.max(b.width, b.height));
  return sorted.find((r) => r.width > size || r.height > size) ?? sorted[sorted.length - 1];
}

export function photoUrl(publicUrl: string, uniqueId: string, rendition: Rendition): string {
  return `${publicUrl.replace(/\/$/, "")}/photos/${uniqueId}/${rendition.size}`;
}

/** urls map: each requested size → the URL of its best match. */
export function urlsFor(publicUrl: string, photo: PhotoRow, sizes: readonly number[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const size of sizes) {
    urls[String(size)] = photo.source === 1
      ? photoUrl(publicUrl, photo.data.uniqueId, bestRendition(photo.data.renditions, size))
      : photo.data.url;
  }
  return urls;
}

/** The activity's photos summary: count and the first photo as primary (urls for sizes 100 and 600). */
export function photosSummary(publicUrl: string, photos: readonly PhotoRow[]) {
  const first = photos[0];
  return {
    primary: first
      ? {
        id: first.source === 2 ? first.data.photoId : null,
        source: first.source,
        unique_id: first.source === 1 ? first.data.uniqueId : null,
        urls: urlsFor(publicUrl, first, [100, 600]),
      }
      : null,
    count: photos.length,
  };
}
