import { z } from "zod";
import { model, nullableNum, num } from "../http/schema.ts";

/** Gear (Strava's SummaryGear / DetailedGear). */
const summaryShape = {
  id: z.string(),
  primary: z.boolean(),
  name: z.string(),
  nickname: z.string(),
  resource_state: z.number().int(),
  retired: z.boolean(),
  distance: num,
  converted_distance: num,
  reminder_distance: nullableNum.meta({
    description: "Extension: replace the gear at this distance (metres); null without a reminder.",
  }),
  reminder_reached: z.boolean().meta({
    description: "Extension: whether the gear's distance has reached its reminder distance.",
  }),
};

export const zSummaryGear = model(
  "SummaryGear",
  z.object(summaryShape),
  "A bike or a pair of shoes (resource_state 2).",
  {
    id: "b1234567",
    primary: true,
    name: "Road bike",
    nickname: "Road bike",
    resource_state: 2,
    retired: false,
    distance: 1234567,
    converted_distance: 1234.6,
    reminder_distance: null,
    reminder_reached: false,
  },
);

export const zDetailedGear = model(
  "DetailedGear",
  z.object({
    ...summaryShape,
    brand_name: z.string(),
    model_name: z.string(),
    description: z.string(),
    frame_type: z.number().int().nullable().optional(),
    weight: nullableNum.optional(),
  }),
  "Gear with brand, model and description (resource_state 3); bikes add frame_type and weight.",
  {
    id: "b1234567",
    primary: true,
    name: "Road bike",
    nickname: "Road bike",
    resource_state: 3,
    retired: false,
    distance: 1234567,
    converted_distance: 1234.6,
    reminder_distance: 1500000,
    reminder_reached: false,
    brand_name: "Koga",
    model_name: "Kimera",
    description: "",
    frame_type: 3,
    weight: 8.2,
  },
);
