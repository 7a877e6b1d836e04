import type { NewEvent } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import { athleteFollowed, athleteUnfollowed } from "../athlete/events.ts";

export interface FollowState {
  following: Set<number>;
}

export type FollowCommand =
  | { type: "follow"; athleteId: number; targetId: number }
  | { type: "unfollow"; athleteId: number; targetId: number };

/** Follows of one athlete: not oneself; following twice or unfollowing a stranger changes nothing. */
export const followDecider: Decider<FollowState, FollowCommand> = {
  initialState: () => ({ following: new Set() }),
  evolve(state, event: NewEvent) {
    const d = event.data as { targetId: number };
    const following = new Set(state.following);
    if (event.type === athleteFollowed.type) following.add(d.targetId);
    if (event.type === athleteUnfollowed.type) following.delete(d.targetId);
    return { following };
  },
  decide(command, state) {
    if (command.athleteId === command.targetId) {
      throw new DomainError("invalid", "Athlete", "target", "invalid", "an athlete cannot follow themselves");
    }
    const data = { athleteId: command.athleteId, targetId: command.targetId };
    if (command.type === "follow") {
      return state.following.has(command.targetId) ? [] : [athleteFollowed.create(data)];
    }
    return state.following.has(command.targetId) ? [athleteUnfollowed.create(data)] : [];
  },
};
