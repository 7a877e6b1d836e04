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

/** The largest reminder distance (metres): 100,000 km. */
export const MAX_REMINDER_DISTANCE = 100_000_000;

export const gearUpdated = defineEvent({
  type: "GearUpdated",
  description:
    "The athlete changed a bike or pair of shoes (PUT /v3/gear/:id): only the fields present changed. retired keeps the gear and its distance but takes it out of pickers (and makes it not primary); reminderDistance (metres, null: none) is when to replace it.",
  schema: z.object({
    gearId: z.string().regex(/^[bg]\d+$/),
    athleteId: z.number().int().positive(),
    name: z.string().optional(),
    nickname: z.string().nullable().optional(),
    brandName: z.string().nullable().optional(),
    modelName: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    primary: z.boolean().optional(),
    retired: z.boolean().optional(),
    /** Replace at this distance (metres); null: no reminder. */
    reminderDistance: z.number().positive().max(MAX_REMINDER_DISTANCE).nullable().optional(),
  }),
});

export const gearStream = (athleteId: number) => `gear-${athleteId}`;

/** The events of an athlete's gear stream (`gearStream`, `gearDecider`). */
export type GearEvent = EventOf<typeof gearAdded | typeof gearUpdated>;
