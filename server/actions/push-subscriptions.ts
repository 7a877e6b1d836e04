import { DomainError, handleCommand } from "../../events/decider.ts";
import { pushSubscriptionDecider } from "../../events/push-subscription/decide.ts";
import { pushSubscriptionStream } from "../../events/push-subscription/events.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { secretMatches } from "../security.ts";
import { callbackUrlAllowed, verifyCallback } from "../webhooks/handshake.ts";

const invalid = (resource: string, field: string, code = "invalid") => new DomainError("invalid", resource, field, code);

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** Push subscriptions authenticate with the application's own credentials (no athlete token). */
export async function authenticateApplication(platform: Platform, credentials: ClientCredentials): Promise<number> {
  const { clientId, clientSecret } = credentials;
  if (!clientId) throw invalid("Application", "client_id", "missing");
  if (!/^\d{1,15}$/.test(clientId)) throw invalid("Application", "client_id");
  const [app] = await platform.db.query<{ id: number; client_secret_hash: string }>(
    "select id, client_secret_hash from applications where id = $1",
    [Number(clientId)],
  );
  if (!app) throw invalid("Application", "client_id");
  if (!clientSecret) throw invalid("Application", "client_secret", "missing");
  if (!secretMatches(clientSecret, app.client_secret_hash)) throw invalid("Application", "client_secret");
  return Number(app.id);
}

export interface PushSubscriptionRow {
  id: number;
  application_id: number;
  callback_url: string;
  created_at: string;
  updated_at: string;
}

export async function subscriptionsOf(platform: Platform, applicationId: number): Promise<PushSubscriptionRow[]> {
  const rows = await platform.db.query<PushSubscriptionRow>(
    "select id, application_id, callback_url, created_at, updated_at from push_subscriptions where application_id = $1 order by id",
    [applicationId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), application_id: Number(r.application_id) }));
}

/**
 * Creates the application's subscription: refused when one exists; otherwise the callback must
 * pass the validation handshake first (nothing is recorded when it does not).
 */
export async function createPushSubscription(
  platform: Platform,
  applicationId: number,
  input: { callbackUrl?: string; verifyToken?: string },
  requestId: string,
): Promise<PushSubscriptionRow> {
  if (!input.callbackUrl) throw invalid("PushSubscription", "callback_url", "missing");
  if (!input.verifyToken) throw invalid("PushSubscription", "verify_token", "missing");
  if (!callbackUrlAllowed(input.callbackUrl)) throw invalid("PushSubscription", "callback url", "not verifiable");
  if ((await subscriptionsOf(platform, applicationId)).length > 0) throw invalid("PushSubscription", "", "already exists");
  if (!(await verifyCallback(input.callbackUrl, input.verifyToken))) {
    throw invalid("PushSubscription", "callback url", "not verifiable");
  }
  const subscriptionId = await nextId(platform.db, "push_subscription");
  await handleCommand(platform.store, pushSubscriptionStream(applicationId), pushSubscriptionDecider, {
    type: "create",
    subscriptionId,
    applicationId,
    callbackUrl: input.callbackUrl,
  }, { metadata: { applicationId, requestId, source: "push_subscriptions" } });
  const created = (await subscriptionsOf(platform, applicationId)).find((s) => s.id === subscriptionId);
  if (!created) throw invalid("PushSubscription", "", "already exists");
  return created;
}

export async function deletePushSubscription(
  platform: Platform,
  applicationId: number,
  subscriptionId: number,
  requestId: string,
): Promise<void> {
  await handleCommand(platform.store, pushSubscriptionStream(applicationId), pushSubscriptionDecider, {
    type: "delete",
    subscriptionId,
    applicationId,
  }, { metadata: { applicationId, requestId, source: "push_subscriptions" } });
  platform.jobs.kick();
}
