import type { Platform } from "../platform.ts";
import type { JobKind } from "../jobs/runner.ts";
import { type AddressPolicy, type AddressRange, parseRange } from "./address-policy.ts";
import { deliverQueue, type DeliveryPolicy, dueSubscriptions } from "./delivery.ts";
import { ensureOutbox, followerBehind, followOnce } from "./outbox.ts";

const FOLLOW = "log";
const SUBSCRIPTION = "subscription-";

export function deliveryPolicy(platform: Platform): DeliveryPolicy {
  return {
    attempts: Math.max(1, platform.config.webhookAttempts ?? 3),
    retryMs: Math.max(0, platform.config.webhookRetryMs ?? 10_000),
    address: addressPolicy(platform),
  };
}

/** Where webhook handshakes and deliveries may go: public addresses, and private ones as WEBHOOKS_ALLOW_PRIVATE allows. */
export function addressPolicy(platform: Platform): AddressPolicy {
  const allow = platform.config.webhooksAllowPrivate ?? false;
  if (typeof allow === "boolean") return { allowPrivate: allow };
  return { allowPrivate: allow.map((r) => parseRange(r)).filter((r): r is AddressRange => r !== null) };
}

/**
 * Webhook deliveries as a durable job kind: job `log` follows the event log into the outbox
 * (outbox.ts); job `subscription-<id>` delivers that subscription's due deliveries in order
 * (delivery.ts). Leases keep one worker per job across servers; all state is in tables, so a
 * restart resumes where the last server stopped.
 */
export function webhookDeliveryJob(platform: Platform): JobKind {
  return {
    kind: "webhook-delivery",
    async pending(db, limit) {
      await ensureOutbox(db);
      const ids: string[] = [];
      if (await followerBehind(db, platform.store)) ids.push(FOLLOW);
      for (const id of await dueSubscriptions(db, limit)) ids.push(`${SUBSCRIPTION}${id}`);
      return ids;
    },
    async run(id) {
      await ensureOutbox(platform.db);
      if (id === FOLLOW) {
        for (let batch = 0; batch < 10; batch++) {
          if ((await followOnce(platform.db, platform.store)) === 0) break;
        }
        return;
      }
      if (id.startsWith(SUBSCRIPTION)) {
        await deliverQueue(platform.db, Number(id.slice(SUBSCRIPTION.length)), deliveryPolicy(platform));
      }
    },
  };
}
