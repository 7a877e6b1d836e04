import { type Decider, DomainError } from "../decider.ts";
import type { EventData } from "../catalogue.ts";
import { gearAdded, type GearEvent } from "./events.ts";

/** One athlete's gear (stream gear-<athlete>). */
export interface GearState {
  gearIds: Set<string>;
}

export type GearCommand = { type: "add"; gear: EventData<typeof gearAdded> };

const refuse = (field: string, code: string, message?: string) =>
  new DomainError("invalid", "Gear", field, code, message);

/**
 * Adding a bike or shoes: a name (1–255 characters), frame type and weight for bikes only, a frame
 * type of 1–4 (MTB, cross, road, TT), a weight between 0 and 100 kg; a gear id only once.
 */
export const gearDecider: Decider<GearState, GearCommand, GearEvent> = {
  initialState: () => ({ gearIds: new Set() }),
  evolve(state, event: GearEvent) {
    if (event.type !== gearAdded.type) return state;
    return { gearIds: new Set([...state.gearIds, event.data.gearId]) };
  },
  decide(command, state) {
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
