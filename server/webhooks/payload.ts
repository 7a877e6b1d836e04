/**
 * What a subscriber receives, and which change of an activity it sees. Pure functions: the
 * follower (outbox.ts) calls them with the activity as it was before and after an event.
 */
import { mayView } from "../privacy/engine.ts";
import { isPrivateVisibility, type Visibility } from "../../shared/visibility.ts";

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
  visibility: Visibility;
}

/**
 * What an application sees of a change (null = nothing): before null = the activity appeared,
 * after null = it was deleted. Subscribers act for the owner only (applications the owner
 * authorized): without view_private an only_me activity does not exist for the application —
 * turning only_me is a delete, turning followers-only or everyone again a create, and `private` is
 * never among its updates; a followers-only activity is the owner's to see with any scope. No
 * application authorized by another athlete (a follower or not) hears of the activity at all.
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
    v !== null && mayView({ athlete_id: 0, visibility: v.visibility }, owner, false);
  const was = visible(before);
  const is = visible(after);
  if (!was && !is) return null;
  if (!was) return { aspect: "create", updates: {} };
  if (!is) return { aspect: "delete", updates: {} };
  const updates: Record<string, string> = {};
  if (before!.name !== after!.name) updates.title = after!.name;
  if (before!.type !== after!.type) updates.type = after!.type;
  // Strava's update keys: `private` is "true" (only you) or "false" (followers or everyone).
  const wasPrivate = isPrivateVisibility(before!.visibility), isPrivate = isPrivateVisibility(after!.visibility);
  if (viewPrivate && wasPrivate !== isPrivate) updates.private = String(isPrivate);
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
