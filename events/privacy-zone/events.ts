import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/** An athlete's privacy zones; one stream per athlete (`privacy-zones-<athleteId>`). */
export const privacyZoneCreated = defineEvent({
  type: "PrivacyZoneCreated",
  description: "An athlete added a privacy zone: positions within radiusM metres of (lat, lng) are hidden from others.",
  schema: z.object({
    zoneId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    radiusM: z.number().positive(),
  }),
});

export const privacyZoneDeleted = defineEvent({
  type: "PrivacyZoneDeleted",
  description: "An athlete removed one of their privacy zones.",
  schema: z.object({ zoneId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const privacyZoneStream = (athleteId: number) => `privacy-zones-${athleteId}`;

/** The events of an athlete's privacy zones stream (`privacyZoneStream`, `privacyZoneDecider`). */
export type PrivacyZoneEvent = EventOf<
  | typeof privacyZoneCreated
  | typeof privacyZoneDeleted
>;
