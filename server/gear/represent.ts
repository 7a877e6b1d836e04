import type { z } from "zod";
import type { GearRow } from "../../projections/gear/queries.ts";
import type { zDetailedGear, zSummaryGear } from "./schema.ts";

export type { GearRow };

/**
 * The spec's gear summary (id, primary, name, distance, resource_state 2), the real service's
 * extras, and the reminder (extensions): `reminder_distance` (metres, null: none) and
 * `reminder_reached` (the distance has reached it: time to replace).
 */
export function summaryGear(row: GearRow): z.input<typeof zSummaryGear> {
  const distance = Number(row.distance);
  const reminder = row.reminder_distance === null ? null : Number(row.reminder_distance);
  return {
    id: row.id,
    primary: row.is_primary,
    name: row.name,
    nickname: row.nickname ?? "",
    resource_state: 2,
    retired: row.retired,
    distance,
    converted_distance: Math.round(distance / 100) / 10,
    reminder_distance: reminder,
    reminder_reached: reminder !== null && distance >= reminder,
  };
}

/** Detailed gear (resource_state 3, reference §4.3); bikes add frame_type and weight. */
export function detailedGear(row: GearRow): z.input<typeof zDetailedGear> {
  const base = {
    ...summaryGear(row),
    resource_state: 3,
    // Strings, never null (Strava's model types them string): "" where the athlete gave none.
    brand_name: row.brand_name ?? "",
    model_name: row.model_name ?? "",
    description: row.description ?? "",
  };
  return row.kind === "bike"
    ? { ...base, frame_type: row.frame_type, weight: row.weight === null ? null : Number(row.weight) }
    : base;
}
