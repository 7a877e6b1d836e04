import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** An athlete's own profile picture (the default is an identicon drawn from the id, server/avatars/). */
export const athletePictureChanged = defineEvent({
  type: "AthletePictureChanged",
  description:
    "An athlete set a profile picture: the blobs (sha-256) of its square renditions, profile (124 px) and profile_medium (62 px), and their content type.",
  schema: z.object({
    athleteId: z.number().int().positive(),
    large: sha256,
    medium: sha256,
    contentType: z.enum(["image/jpeg", "image/png"]),
  }),
});

export const athletePictureRemoved = defineEvent({
  type: "AthletePictureRemoved",
  description: "An athlete removed their profile picture: profile and profile_medium show the identicon again.",
  schema: z.object({ athleteId: z.number().int().positive() }),
});

/** The picture's own stream, one per athlete. */
export const athletePictureStream = (athleteId: number) => `athlete-picture-${athleteId}`;

/** The events of an athlete's picture stream (`athletePictureStream`, `pictureDecider`). */
export type AthletePictureEvent = EventOf<
  | typeof athletePictureChanged
  | typeof athletePictureRemoved
>;
