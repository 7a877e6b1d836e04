import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import { challengeCreated, type ChallengeEvent, challengeJoined, challengeLeft } from "./events.ts";

export type ChallengeFacts = Omit<EventData<typeof challengeCreated>, "challengeId">;

export interface ChallengeState {
  exists: boolean;
  challengeId: number;
  externalUrl: string | null;
  participants: Set<number>;
}

export type ChallengeCommand =
  | { type: "create"; challengeId: number; facts: ChallengeFacts }
  | { type: "join"; athleteId: number }
  | { type: "leave"; athleteId: number };

/**
 * Challenge participation, as the spec's table states it: joined false → join (no external_url) →
 * joined true; joined true → leave → joined false. Joining twice or leaving when not joined decides
 * nothing. A challenge with an external_url is joined at that address, never here.
 */
export const challengeDecider: Decider<ChallengeState, ChallengeCommand, ChallengeEvent> = {
  initialState: () => ({ exists: false, challengeId: 0, externalUrl: null, participants: new Set() }),
  evolve(state, event: ChallengeEvent) {
    if (event.type === challengeCreated.type) {
      return {
        exists: true,
        challengeId: event.data.challengeId,
        externalUrl: event.data.externalUrl,
        participants: new Set(),
      };
    }
    const participants = new Set(state.participants);
    if (event.type === challengeJoined.type) participants.add(event.data.athleteId);
    else if (event.type === challengeLeft.type) participants.delete(event.data.athleteId);
    else return state;
    return { ...state, participants };
  },
  decide(command, state) {
    if (command.type === "create") {
      if (state.exists) throw new DomainError("conflict", "Challenge", "id", "already exists");
      return [challengeCreated.create({ challengeId: command.challengeId, ...command.facts })];
    }
    if (!state.exists) throw new DomainError("not_found", "Challenge", "id", "invalid", "no such challenge");
    const challengeId = state.challengeId;
    if (command.type === "join") {
      if (state.externalUrl) {
        throw new DomainError(
          "forbidden",
          "Challenge",
          "external_url",
          "join externally",
          `this challenge is joined at ${state.externalUrl}`,
        );
      }
      return state.participants.has(command.athleteId)
        ? []
        : [challengeJoined.create({ challengeId, athleteId: command.athleteId })];
    }
    return state.participants.has(command.athleteId)
      ? [challengeLeft.create({ challengeId, athleteId: command.athleteId })]
      : [];
  },
};
