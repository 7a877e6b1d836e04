import { DomainError, handleCommand } from "../../events/decider.ts";
import { pushSubscriptionDecider } from "../../events/push-subscription/decide.ts";
import { pushSubscriptionStream } from "../../events/push-subscription/events.ts";
import { applicationCredentials } from "../../projections/applications/queries.ts";
import { type PushSubscriptionRow, subscriptionsOfApplication } from "../../projections/push-subscriptions/queries.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { secretMatches } from "../security.ts";
import { checkTarget } from "./address-policy.ts";
import { callbackUrlAllowed, verifyCallback } from "./handshake.ts";
import { addressPolicy } from "./job.ts";

const invalid = (resource: string, field: string, code = "invalid") =>
  new DomainError("invalid", resource, field, code);

/** 400 PushSubscription/callback_url/<"private address" | "not resolvable" | "unsupported">. */
function refusedCallback(reason: string, detail: string): DomainError {
  const hint = reason === "private address"
    ? "; an operator may allow private callbacks with WEBHOOKS_ALLOW_PRIVATE=1"
    : "";
  return new DomainError(
    "invalid",
    "PushSubscription",
    "callback_url",
    reason,
    `callback_url refused: ${detail}${hint}`,
  );
}

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** Push subscriptions authenticate with the application's own credentials (no athlete token). */
export async function authenticateApplication(platform: Platform, credentials: ClientCredentials): Promise<number> {
  const { clientId, clientSecret } = credentials;
  if (!clientId) throw invalid("Application", "client_id", "missing");
  if (!/^\d{1,15}$/.test(clientId)) throw invalid("Application", "client_id");
  const app = await applicationCredentials(platform.db, Number(clientId));
  if (!app) throw invalid("Application", "client_id");
  if (!clientSecret) throw invalid("Application", "client_secret", "missing");
  if (!secretMatches(clientSecret, app.client_secret_hash)) throw invalid("Application", "client_secret");
  return Number(app.id);
}

export type { PushSubscriptionRow };

/**
 * A push subscription request: the application itself, authenticated by its client credentials
 * (no athlete), recorded with source "push_subscriptions" and the request's id.
 */
export function pushSubscriptionsActor(applicationId: number, requestId: string): Actor {
  return { ...systemActor("push_subscriptions", undefined, applicationId), requestId };
}

export function subscriptionsOf(platform: Platform, applicationId: number): Promise<PushSubscriptionRow[]> {
  return subscriptionsOfApplication(platform.db, applicationId);
}

/**
 * Creates the application's subscription: refused when one exists; otherwise the callback must
 * pass the validation handshake first (nothing is recorded when it does not).
 */
export async function createPushSubscription(
  platform: Platform,
  applicationId: number,
  input: { callbackUrl?: string; verifyToken?: string },
  actor: Actor,
): Promise<PushSubscriptionRow> {
  if (!input.callbackUrl) throw invalid("PushSubscription", "callback_url", "missing");
  if (!input.verifyToken) throw invalid("PushSubscription", "verify_token", "missing");
  if (!callbackUrlAllowed(input.callbackUrl)) throw invalid("PushSubscription", "callback url", "not verifiable");
  if ((await subscriptionsOf(platform, applicationId)).length > 0) {
    throw invalid("PushSubscription", "", "already exists");
  }
  // Where the callback points: refused before anything is sent when its host (or a redirect hop
  // of the handshake) resolves to a non-public address, unless WEBHOOKS_ALLOW_PRIVATE=1.
  const policy = addressPolicy(platform);
  const target = await checkTarget(new URL(input.callbackUrl), policy);
  if (!target.ok) throw refusedCallback(target.reason, target.detail);
  const handshake = await verifyCallback(input.callbackUrl, input.verifyToken, policy);
  if (!handshake.ok) {
    if (handshake.refused) throw refusedCallback(handshake.refused.reason, handshake.refused.error);
    throw invalid("PushSubscription", "callback url", "not verifiable");
  }
  const subscriptionId = await nextId(platform.db, "push_subscription");
  await handleCommand(platform.store, pushSubscriptionStream(applicationId), pushSubscriptionDecider, {
    type: "create",
    subscriptionId,
    applicationId,
    callbackUrl: input.callbackUrl,
  }, appendOptions(actor));
  const created = (await subscriptionsOf(platform, applicationId)).find((s) => s.id === subscriptionId);
  if (!created) throw invalid("PushSubscription", "", "already exists");
  return created;
}

export async function deletePushSubscription(
  platform: Platform,
  applicationId: number,
  subscriptionId: number,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, pushSubscriptionStream(applicationId), pushSubscriptionDecider, {
    type: "delete",
    subscriptionId,
    applicationId,
  }, appendOptions(actor));
  platform.jobs.kick();
}
