/**
 * What a subscriber receives, and which change of an activity it sees. Pure functions: the
 * follower (outbox.ts) calls them with the activity as it was before and after an event.
 */
import { canSeeActivity } from "../privacy/engine.ts";

export type AspectType = "create" | "update" | "delete";

/** One webhook event as POSTed to the callback (the real service's fields, string-valued updates). */
export interface WebhookEvent {
  aspect_type: AspectType;
  event_time: number;
  object_id: number;
  object_type: "activity" | "athlete";
  owner_id: number;
  subscription_id: number;
  updates: Record<string, string>;
}

/** The exact body bytes (keys in the documented order); signed and stored once, resent unchanged. */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({
    aspect_type: event.aspect_type,
    event_time: event.event_time,
    object_id: event.object_id,
    object_type: event.object_type,
    owner_id: event.owner_id,
    subscription_id: event.subscription_id,
    updates: event.updates,
  });
}

/** Epoch seconds of an event's recording time. */
export function eventTime(recordedAt: string): number {
  return Math.floor(new Date(recordedAt).getTime() / 1000);
}

/** The fields of an activity a subscriber is told about. */
export interface ActivityView {
  name: string;
  type: string;
  private: boolean;
}

/**
 * What an application sees of a change (null = nothing): before null = the activity appeared,
 * after null = it was deleted. Without view_private a private activity does not exist for the
 * application: turning private is a delete, turning public again a create, and `private` is
 * never among its updates.
 */
export function activityAspect(
  before: ActivityView | null,
  after: ActivityView | null,
  viewPrivate: boolean,
): { aspect: AspectType; updates: Record<string, string> } | null {
  // The subscriber acts for the owner (the athlete who authorized it): the privacy engine's rule for
  // the owner's token with or without view_private.
  const owner = { athleteId: 0, viewPrivate };
  const visible = (v: ActivityView | null) =>
    v !== null && canSeeActivity({ athlete_id: 0, private: v.private }, owner);
  const was = visible(before);
  const is = visible(after);
  if (!was && !is) return null;
  if (!was) return { aspect: "create", updates: {} };
  if (!is) return { aspect: "delete", updates: {} };
  const updates: Record<string, string> = {};
  if (before!.name !== after!.name) updates.title = after!.name;
  if (before!.type !== after!.type) updates.type = after!.type;
  if (viewPrivate && before!.private !== after!.private) updates.private = String(after!.private);
  return Object.keys(updates).length ? { aspect: "update", updates } : null;
}

/** The deauthorization event: the athlete revoked the application's access. */
export function deauthorization(athleteId: number, subscriptionId: number, eventTimeSeconds: number): WebhookEvent {
  return {
    aspect_type: "update",
    event_time: eventTimeSeconds,
    object_id: athleteId,
    object_type: "athlete",
    owner_id: athleteId,
    subscription_id: subscriptionId,
    updates: { authorized: "false" },
  };
}
