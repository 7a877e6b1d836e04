import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import { type UploadEvent, uploadFailed, uploadReceived, uploadSucceeded } from "./events.ts";

/** One upload (stream upload-<id>): received once, then exactly one outcome. */
export interface UploadState {
  received: boolean;
  athleteId: number | null;
  activityId: number | null;
  outcome: "succeeded" | "failed" | null;
}

export type UploadCommand =
  | { type: "receive"; upload: EventData<typeof uploadReceived> }
  | { type: "succeed"; outcome: EventData<typeof uploadSucceeded> }
  | { type: "fail"; outcome: EventData<typeof uploadFailed> };

/**
 * The rules of an upload's stream: an upload id is received once; its outcome (succeeded or failed)
 * is recorded once, for the athlete and activity it was received with — a second outcome (a job
 * resumed after a restart, or run by two servers) decides nothing.
 */
export const uploadDecider: Decider<UploadState, UploadCommand, UploadEvent> = {
  initialState: () => ({ received: false, athleteId: null, activityId: null, outcome: null }),
  evolve(state, event: UploadEvent) {
    switch (event.type) {
      case uploadReceived.type:
        return { ...state, received: true, athleteId: event.data.athleteId, activityId: event.data.activityId };
      case uploadSucceeded.type:
        return { ...state, outcome: "succeeded" };
      case uploadFailed.type:
        return { ...state, outcome: "failed" };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === "receive") {
      if (state.received) throw new DomainError("conflict", "Upload", "id", "already exists");
      return [uploadReceived.create(command.upload)];
    }
    if (!state.received) throw new DomainError("not_found", "Upload", "id", "invalid", "no such upload");
    if (command.outcome.athleteId !== state.athleteId) throw new DomainError("invalid", "Upload", "athlete", "invalid");
    if (state.outcome !== null) return [];
    if (command.type === "succeed") {
      if (command.outcome.activityId !== state.activityId) {
        throw new DomainError("invalid", "Upload", "activity_id", "invalid");
      }
      return [uploadSucceeded.create(command.outcome)];
    }
    return [uploadFailed.create(command.outcome)];
  },
};
