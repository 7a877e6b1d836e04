import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/** An athlete's equipment: bikes (ids b…) and shoes (ids g…). */
export const gearAdded = defineEvent({
  type: "GearAdded",
  description: "A bike or a pair of shoes was added to an athlete's gear (CLI `gear add`).",
  schema: z.object({
    gearId: z.string().regex(/^[bg]\d+$/),
    athleteId: z.number().int().positive(),
    kind: z.enum(["bike", "shoe"]),
    name: z.string(),
    nickname: z.string().nullable(),
    brandName: z.string().nullable(),
    modelName: z.string().nullable(),
    description: z.string().nullable(),
    /** Bikes only: 1 MTB, 2 cross, 3 road, 4 TT. */
    frameType: z.number().int().min(1).max(4).nullable(),
    /** Bikes only, kg. */
    weight: z.number().nullable(),
    primary: z.boolean(),
  }),
});

export const gearStream = (athleteId: number) => `gear-${athleteId}`;

/** The events of an athlete's gear stream (`gearStream`, `gearDecider`). */
export type GearEvent = EventOf<typeof gearAdded>;
