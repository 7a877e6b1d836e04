import { type Decider, DomainError } from "../decider.ts";
import type { EventData } from "../catalogue.ts";
import { gearAdded, type GearEvent, gearUpdated, MAX_REMINDER_DISTANCE } from "./events.ts";

/** One athlete's gear (stream gear-<athlete>): each piece and whether it is retired. */
export interface GearState {
  gearIds: Set<string>;
  retired: Set<string>;
}

export type GearCommand =
  | { type: "add"; gear: EventData<typeof gearAdded> }
  | { type: "update"; changes: EventData<typeof gearUpdated> };

const refuse = (field: string, code: string, message?: string) =>
  new DomainError("invalid", "Gear", field, code, message);

/**
 * Adding a bike or shoes: a name (1–255 characters), frame type and weight for bikes only, a frame
 * type of 1–4 (MTB, cross, road, TT), a weight between 0 and 100 kg; a gear id only once.
 * Changing one: only the athlete's own gear (else not found), a name of 1–255 characters, a
 * reminder distance above 0 and at most 100,000 km (null clears it); retired gear is never primary
 * (retiring the primary takes that away; asking for both is refused); nothing changed, nothing recorded.
 */
export const gearDecider: Decider<GearState, GearCommand, GearEvent> = {
  initialState: () => ({ gearIds: new Set(), retired: new Set() }),
  evolve(state, event: GearEvent) {
    if (event.type === gearAdded.type) {
      return { ...state, gearIds: new Set([...state.gearIds, event.data.gearId]) };
    }
    if (event.data.retired === undefined) return state;
    const retired = new Set(state.retired);
    if (event.data.retired) retired.add(event.data.gearId);
    else retired.delete(event.data.gearId);
    return { ...state, retired };
  },
  decide(command, state) {
    if (command.type === "update") {
      const c = command.changes;
      if (!state.gearIds.has(c.gearId)) throw new DomainError("not_found", "Gear", "id", "invalid");
      if (c.name !== undefined && (!c.name || c.name.length > 255)) {
        throw refuse("name", c.name ? "invalid" : "missing");
      }
      if (
        c.reminderDistance !== undefined && c.reminderDistance !== null &&
        !(c.reminderDistance > 0 && c.reminderDistance <= MAX_REMINDER_DISTANCE)
      ) throw refuse("reminder_distance", "invalid");
      const retiredAfter = c.retired ?? state.retired.has(c.gearId);
      if (c.primary === true && retiredAfter) throw refuse("primary", "retired", "retired gear is never primary");
      const changes = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));
      // Retiring takes the primary flag away (recorded, so the read model needs no rule of its own).
      if (c.retired === true && !state.retired.has(c.gearId)) changes.primary = false;
      if (c.retired !== undefined && c.retired === state.retired.has(c.gearId)) delete changes.retired;
      if (Object.keys(changes).length <= 2) return [];
      return [gearUpdated.create(changes as EventData<typeof gearUpdated>)];
    }
    const gear = command.gear;
    if (!gear.name || gear.name.length > 255) throw refuse("name", gear.name ? "invalid" : "missing");
    if (gear.kind === "shoe" && (gear.frameType !== null || gear.weight !== null)) {
      throw refuse("frame_type", "invalid", "frame type and weight are for bikes");
    }
    if (gear.frameType !== null && ![1, 2, 3, 4].includes(gear.frameType)) throw refuse("frame_type", "invalid");
    if (gear.weight !== null && !(gear.weight > 0 && gear.weight < 100)) throw refuse("weight", "invalid");
    if (state.gearIds.has(gear.gearId)) throw new DomainError("conflict", "Gear", "id", "already exists");
    return [gearAdded.create(gear)];
  },
};
