import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/**
 * Webhook push subscriptions (one per application), on the stream `push-subscriptions-<applicationId>`.
 * The verify token is used only for the creation handshake and is not recorded.
 */

export const pushSubscriptionCreated = defineEvent({
  type: "PushSubscriptionCreated",
  description:
    "An application subscribed to webhook events (POST /v3/push_subscriptions) after its callback answered the validation handshake.",
  schema: z.object({
    subscriptionId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    callbackUrl: z.string(),
  }),
});

export const pushSubscriptionDeleted = defineEvent({
  type: "PushSubscriptionDeleted",
  description: "An application deleted its push subscription; pending deliveries are dropped.",
  schema: z.object({
    subscriptionId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
  }),
});

export const pushSubscriptionStream = (applicationId: number) => `push-subscriptions-${applicationId}`;

/** The events of an application's push subscriptions stream (`pushSubscriptionStream`, `pushSubscriptionDecider`). */
export type PushSubscriptionEvent = EventOf<
  | typeof pushSubscriptionCreated
  | typeof pushSubscriptionDeleted
>;
