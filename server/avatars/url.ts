import { requestPublicUrl } from "../ops/context.ts";
import type { AvatarSize, CoverSize } from "./identicon.ts";

/**
 * The absolute URL of an athlete's picture (profile: large, profile_medium: medium), on this
 * server's public URL while a request is handled (root-relative otherwise).
 */
export function athleteAvatarUrl(athleteId: number, size: AvatarSize): string {
  const base = (requestPublicUrl() ?? "").replace(/\/$/, "");
  return `${base}/avatars/athletes/${athleteId}/${size}.png`;
}

/**
 * The absolute URL of a club's picture (profile: large, profile_medium: medium; cover_photo: cover,
 * cover_photo_small: cover_small), as athleteAvatarUrl.
 */
export function clubAvatarUrl(clubId: number, size: AvatarSize | CoverSize): string {
  const base = (requestPublicUrl() ?? "").replace(/\/$/, "");
  return `${base}/avatars/clubs/${clubId}/${size}.png`;
}
