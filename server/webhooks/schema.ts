import { z } from "zod";
import { dateTime, int, model } from "../http/schema.ts";

/** Webhook push subscriptions (Strava's webhook events API). */
export const zPushSubscription = model(
  "PushSubscription",
  z.object({
    id: int,
    resource_state: int,
    application_id: int,
    callback_url: z.string(),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  "The application's webhook subscription (one per application).",
  {
    id: 120475,
    resource_state: 2,
    application_id: 14,
    callback_url: "https://app.example.com/webhook",
    created_at: "2024-05-06T07:08:09Z",
    updated_at: "2024-05-06T07:08:09Z",
  },
);

export const zPushSubscriptionList = z.array(zPushSubscription);
