import { z } from "zod";
import {
  authenticateApplication,
  createPushSubscription,
  deletePushSubscription,
  type PushSubscriptionRow,
  pushSubscriptionsActor,
  subscriptionsOf,
} from "./commands.ts";
import { zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { zPushSubscription, zPushSubscriptionList } from "./schema.ts";

/** A parameter sent as a form field, JSON value or query parameter (server/http/body.ts readParams). */
const text = z.union([z.string(), z.number()]).transform(String).optional();

const credentials = { client_id: text, client_secret: text };
const createFields = z.object({ ...credentials, callback_url: text, verify_token: text });
const credentialFields = z.object(credentials);

function seconds(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function subscriptionRepresentation(row: PushSubscriptionRow) {
  return {
    id: row.id,
    resource_state: 2,
    application_id: row.application_id,
    callback_url: row.callback_url,
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  };
}

const AUTH_NOTE =
  "Authenticated with the application's client_id and client_secret (form fields or query parameters), not an athlete token.";

export const pushSubscriptionRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/push_subscriptions",
    response: zPushSubscription,
    summary: "Subscribe the application to webhook events (one subscription per application).",
    description:
      `${AUTH_NOTE} Fields: callback_url (http or https, ≤ 255 characters), verify_token. The callback is first sent GET ?hub.mode=subscribe&hub.challenge=…&hub.verify_token=… and must answer 2xx within 2 s with {"hub.challenge": <the same value>}; otherwise 400 PushSubscription/callback url/not verifiable. A callback whose host (or a redirect of the handshake) resolves to a loopback, private, link-local, unique-local or CGNAT address: 400 PushSubscription/callback_url/private address, nothing sent (unless the operator sets WEBHOOKS_ALLOW_PRIVATE); a host that does not resolve: 400 PushSubscription/callback_url/not resolvable. A second subscription: 400 PushSubscription//already exists. 201 with the subscription.`,
    tag: "Webhooks",
    auth: "none",
    resource: "PushSubscription",
    // Form fields, JSON or the query string (the body wins): the shared mount merges them.
    body: createFields,
    status: 201,
    async handler({ platform, body: input, requestId }) {
      const applicationId = await authenticateApplication(platform, {
        clientId: input.client_id,
        clientSecret: input.client_secret,
      });
      const created = await createPushSubscription(platform, applicationId, {
        callbackUrl: input.callback_url,
        verifyToken: input.verify_token,
      }, pushSubscriptionsActor(applicationId, requestId));
      return subscriptionRepresentation(created);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/push_subscriptions",
    response: zPushSubscriptionList,
    summary: "The application's push subscriptions (an array of at most one).",
    description: AUTH_NOTE,
    tag: "Webhooks",
    auth: "none",
    resource: "PushSubscription",
    query: credentialFields,
    async handler({ platform, query }) {
      const applicationId = await authenticateApplication(platform, {
        clientId: query.client_id,
        clientSecret: query.client_secret,
      });
      return (await subscriptionsOf(platform, applicationId)).map(subscriptionRepresentation);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/push_subscriptions/:id",
    summary: "Delete the application's push subscription; pending deliveries are dropped. 204 No Content.",
    description: `${AUTH_NOTE} Another application's subscription is 404.`,
    tag: "Webhooks",
    auth: "none",
    resource: "PushSubscription",
    params: z.object({ id: zNumId }),
    body: credentialFields,
    status: 204,
    async handler({ platform, params, body: input, requestId }) {
      const applicationId = await authenticateApplication(platform, {
        clientId: input.client_id,
        clientSecret: input.client_secret,
      });
      await deletePushSubscription(
        platform,
        applicationId,
        params.id,
        pushSubscriptionsActor(applicationId, requestId),
      );
      return null;
    },
  }),
];
