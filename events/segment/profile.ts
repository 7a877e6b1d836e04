import type { EventData } from "../catalogue.ts";
import type { Decider } from "../decider.ts";
import { segmentCreated, type SegmentEvent, segmentProfileMeasured } from "./events.ts";

type Measured = EventData<typeof segmentProfileMeasured>;

/** A segment's elevation profile (stream segment-<id>): its own altitudes, or where a measurement came from. */
export interface ProfileState {
  created: boolean;
  /** Created with altitudes of its own (from an activity, or given with its points): never measured. */
  ownAltitudes: boolean;
  /** The source of the current measurement, or null while none. */
  measured: Measured["source"] | null;
}

export type ProfileCommand = { type: "measure-profile"; measurement: Measured };

/**
 * Measuring a segment's profile from an effort: only a segment without altitudes of its own is
 * measured; the first measurement is kept unless it came from GPS altitudes and a barometric one
 * arrives (which replaces it, once: nothing replaces a barometric measurement). Anything else
 * records nothing, so a retried upload never measures twice.
 */
export const profileDecider: Decider<ProfileState, ProfileCommand, SegmentEvent> = {
  initialState: () => ({ created: false, ownAltitudes: false, measured: null }),
  evolve(state: ProfileState, event: SegmentEvent): ProfileState {
    if (event.type === segmentCreated.type) {
      return { ...state, created: true, ownAltitudes: event.data.altitudes !== null };
    }
    if (event.type === segmentProfileMeasured.type) return { ...state, measured: event.data.source };
    return state;
  },
  decide(command: ProfileCommand, state: ProfileState): SegmentEvent[] {
    if (!state.created || state.ownAltitudes) return [];
    if (state.measured === "barometric") return [];
    if (state.measured === "gps" && command.measurement.source !== "barometric") return [];
    return [segmentProfileMeasured.create(command.measurement)];
  },
};
