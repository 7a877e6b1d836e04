import type { Decider } from "../decider.ts";
import { athletePictureChanged, type AthletePictureEvent, athletePictureRemoved } from "./events.ts";

export interface PictureState {
  /** sha-256 of the large rendition, or null for the identicon. */
  large: string | null;
}

export type PictureCommand =
  | { type: "set"; athleteId: number; large: string; medium: string; contentType: "image/jpeg" | "image/png" }
  | { type: "remove"; athleteId: number };

/** Setting the picture it already has, or removing none, changes nothing. */
export const pictureDecider: Decider<PictureState, PictureCommand, AthletePictureEvent> = {
  initialState: () => ({ large: null }),
  evolve(state, event: AthletePictureEvent) {
    if (event.type === athletePictureChanged.type) return { large: event.data.large };
    if (event.type === athletePictureRemoved.type) return { large: null };
    return state;
  },
  decide(command, state) {
    if (command.type === "set") {
      if (state.large === command.large) return [];
      const { athleteId, large, medium, contentType } = command;
      return [athletePictureChanged.create({ athleteId, large, medium, contentType })];
    }
    return state.large === null ? [] : [athletePictureRemoved.create({ athleteId: command.athleteId })];
  },
};
