import { createHash } from "node:crypto";
import { encodeRgbaPng } from "../images/png.ts";

import { AVATAR_SIZES, type AvatarSize } from "../images/avatar-renditions.ts";

export { AVATAR_SIZES, type AvatarSize };

/**
 * The default avatar of an athlete: a 5×5 mirrored pattern (an identicon) in one colour on a
 * light background, drawn from a hash of the athlete id, so each athlete keeps the same picture
 * (a club's from a hash of the club id, `kind` "club").
 */
export function identiconPng(athleteId: number, size: AvatarSize, kind: "athlete" | "club" = "athlete"): Uint8Array {
  const px = AVATAR_SIZES[size];
  const hash = createHash("sha256").update(`${kind}-avatar:${athleteId}`).digest();
  const hue = (hash[0] * 360) / 256;
  const [r, g, b] = hslToRgb(hue, 0.55, 0.5);
  const cells: boolean[] = [];
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      const source = x < 3 ? x : 4 - x;
      cells.push((hash[1 + y * 3 + source] & 1) === 1);
    }
  }
  const margin = Math.round(px / 10);
  const cell = (px - 2 * margin) / 5;
  const rgba = new Uint8Array(px * px * 4);
  for (let y = 0; y < px; y++) {
    for (let x = 0; x < px; x++) {
      const cx = Math.floor((x - margin) / cell);
      const cy = Math.floor((y - margin) / cell);
      const on = cx >= 0 && cx < 5 && cy >= 0 && cy < 5 && cells[cy * 5 + cx];
      const o = (y * px + x) * 4;
      rgba[o] = on ? r : 240;
      rgba[o + 1] = on ? g : 240;
      rgba[o + 2] = on ? b : 240;
      rgba[o + 3] = 255;
    }
  }
  return encodeRgbaPng(px, px, rgba, 6);
}

/** Strava's club cover sizes (SummaryClub cover_photo ~1185×580, cover_photo_small ~360×176). */
export const COVER_SIZES = { cover: [1185, 580], cover_small: [360, 176] } as const;
export type CoverSize = keyof typeof COVER_SIZES;

/**
 * A club's default cover picture: a band in the club's colour (the hue of its identicon) fading to
 * light on the right, with the identicon's pattern at the left, so a club without a cover of its
 * own has one at a real address (Strava's clients read cover_photo as a URL).
 */
export function clubCoverPng(clubId: number, size: CoverSize): Uint8Array {
  const [width, height] = COVER_SIZES[size];
  const hash = createHash("sha256").update(`club-avatar:${clubId}`).digest();
  const [r, g, b] = hslToRgb((hash[0] * 360) / 256, 0.55, 0.5);
  const rgba = new Uint8Array(width * height * 4);
  const cell = Math.floor(height / 7);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const cx = Math.floor((x - cell) / cell);
      const cy = Math.floor((y - cell) / cell);
      const source = cx < 3 ? cx : 4 - cx;
      const on = cx >= 0 && cx < 5 && cy >= 0 && cy < 5 && (hash[1 + cy * 3 + source] & 1) === 1;
      const fade = on ? 0.35 : Math.min(1, x / width + 0.15);
      const o = (y * width + x) * 4;
      rgba[o] = Math.round(r + (240 - r) * fade);
      rgba[o + 1] = Math.round(g + (240 - g) * fade);
      rgba[o + 2] = Math.round(b + (240 - b) * fade);
      rgba[o + 3] = 255;
    }
  }
  return encodeRgbaPng(width, height, rgba, 6);
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] = h < 60
    ? [c, x, 0]
    : h < 120
    ? [x, c, 0]
    : h < 180
    ? [0, c, x]
    : h < 240
    ? [0, x, c]
    : h < 300
    ? [x, 0, c]
    : [c, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}
