import { type Decider, DomainError } from "../decider.ts";
import { pushSubscriptionCreated, pushSubscriptionDeleted, type PushSubscriptionEvent } from "./events.ts";

export interface PushSubscriptionState {
  /** The application's current subscription, if any. */
  current: number | null;
}

export type PushSubscriptionCommand =
  | { type: "create"; subscriptionId: number; applicationId: number; callbackUrl: string }
  | { type: "delete"; subscriptionId: number; applicationId: number };

/** One subscription per application; it cannot be edited, only deleted and created again. */
export const pushSubscriptionDecider: Decider<PushSubscriptionState, PushSubscriptionCommand, PushSubscriptionEvent> = {
  initialState: () => ({ current: null }),
  evolve(state, event: PushSubscriptionEvent) {
    if (event.type === pushSubscriptionCreated.type) return { current: event.data.subscriptionId };
    if (event.type === pushSubscriptionDeleted.type && state.current === event.data.subscriptionId) {
      return { current: null };
    }
    return state;
  },
  decide(command, state) {
    if (command.type === "create") {
      if (state.current !== null) {
        throw new DomainError(
          "invalid",
          "PushSubscription",
          "",
          "already exists",
          "the application already has a push subscription",
        );
      }
      return [pushSubscriptionCreated.create({
        subscriptionId: command.subscriptionId,
        applicationId: command.applicationId,
        callbackUrl: command.callbackUrl,
      })];
    }
    if (state.current !== command.subscriptionId) {
      throw new DomainError("not_found", "PushSubscription", "id", "invalid");
    }
    return [
      pushSubscriptionDeleted.create({ subscriptionId: command.subscriptionId, applicationId: command.applicationId }),
    ];
  },
};
