import { type Decider, DomainError } from "../decider.ts";
import { athleteFollowed, athleteUnfollowed, type FollowEvent } from "../athlete/events.ts";

export interface FollowState {
  following: Set<number>;
}

export type FollowCommand =
  | { type: "follow"; athleteId: number; targetId: number }
  | { type: "unfollow"; athleteId: number; targetId: number };

/** Follows of one athlete: not oneself; following twice or unfollowing a stranger changes nothing. */
export const followDecider: Decider<FollowState, FollowCommand, FollowEvent> = {
  initialState: () => ({ following: new Set() }),
  evolve(state, event: FollowEvent) {
    const following = new Set(state.following);
    if (event.type === athleteFollowed.type) following.add(event.data.targetId);
    if (event.type === athleteUnfollowed.type) following.delete(event.data.targetId);
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
