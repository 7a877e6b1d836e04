import type { Decider } from "../decider.ts";
import { type SegmentStarEvent, segmentStarred, segmentUnstarred } from "./events.ts";

/** One athlete's star on one segment (stream segment-star-<athlete>-<segment>). */
export interface StarState {
  starred: boolean;
}

export type StarCommand = { type: "star"; starred: boolean; athleteId: number; segmentId: number };

/** Starring twice (or unstarring an unstarred segment) changes nothing and records nothing. */
export const starDecider: Decider<StarState, StarCommand, SegmentStarEvent> = {
  initialState: () => ({ starred: false }),
  evolve(state: StarState, event: SegmentStarEvent): StarState {
    if (event.type === segmentStarred.type) return { starred: true };
    if (event.type === segmentUnstarred.type) return { starred: false };
    return state;
  },
  decide(command: StarCommand, state: StarState): SegmentStarEvent[] {
    if (command.starred === state.starred) return [];
    const data = { athleteId: command.athleteId, segmentId: command.segmentId };
    return [command.starred ? segmentStarred.create(data) : segmentUnstarred.create(data)];
  },
};
