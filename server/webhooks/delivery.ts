import type { Db } from "../../events/db/types.ts";
import { liveSubscriptionSecret } from "../../projections/queries/subscription-secret.ts";
import type { AddressPolicy } from "./address-policy.ts";
import { CALLBACK_TIMEOUT_MS, USER_AGENT } from "./handshake.ts";
import { callbackRequest } from "./outbound.ts";
import { ATTEMPT_HEADER, DELIVERY_HEADER, SIGNATURE_HEADER, signBody } from "./signature.ts";

export interface DeliveryPolicy {
  /** Attempts per delivery, the first included (the real service: 3). */
  attempts: number;
  /** Back-off before attempt n + 1: retryMs × 2^(n − 1). */
  retryMs: number;
  /** Where deliveries may go (WEBHOOKS_ALLOW_PRIVATE): checked again at every attempt and redirect. */
  address: AddressPolicy;
}

interface DeliveryRow {
  id: number;
  subscription_id: number;
  application_id: number;
  callback_url: string;
  body: string;
  attempts: number;
  due: boolean;
}

/** Subscriptions whose oldest pending delivery is due (one worker per subscription keeps order). */
export async function dueSubscriptions(db: Db, limit: number): Promise<number[]> {
  const rows = await db.query<{ subscription_id: number }>(
    `select d.subscription_id
       from (select subscription_id, min(id) as id from public.webhook_deliveries
              where status = 'pending' group by subscription_id) h
       join public.webhook_deliveries d on d.id = h.id
      where d.next_attempt_at <= now()
      order by d.next_attempt_at
      limit $1`,
    [limit],
  );
  return rows.map((r) => Number(r.subscription_id));
}

/**
 * POSTs one body through the address policy (outbound.ts: the callback's host is resolved and
 * checked again now — DNS can change after the subscription — and a 307/308 Location is checked
 * before the body is sent there); 2xx within 2 s is an acknowledgement. Never throws.
 */
async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  address: AddressPolicy,
): Promise<{ ok: boolean; status: number | null; error: string | null }> {
  const answer = await callbackRequest(
    {
      method: "POST",
      url,
      body,
      headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers },
    },
    { policy: address, timeoutMs: CALLBACK_TIMEOUT_MS },
  );
  if (answer.kind !== "answered") return { ok: false, status: null, error: answer.error };
  const ok = answer.status >= 200 && answer.status <= 299;
  return { ok, status: answer.status, error: ok ? null : `HTTP ${answer.status}` };
}

/**
 * Delivers a subscription's pending deliveries in order, oldest first: the next one waits until
 * the one before is acknowledged or has used all its attempts. Stops at a delivery that is not
 * due yet (its retry time) or after `max` deliveries. Returns how many were settled.
 */
export async function deliverQueue(db: Db, subscriptionId: number, policy: DeliveryPolicy, max = 25): Promise<number> {
  let settled = 0;
  while (settled < max) {
    const [head] = await db.query<DeliveryRow>(
      `select id, subscription_id, application_id, callback_url, body, attempts, next_attempt_at <= now() as due
         from public.webhook_deliveries where subscription_id = $1 and status = 'pending'
        order by id limit 1`,
      [subscriptionId],
    );
    if (!head || !head.due) return settled;
    const live = await liveSubscriptionSecret(db, subscriptionId);
    if (!live) {
      // Deleted (the follower will cancel the rest too): nothing more goes to that callback.
      await db.query(
        "update public.webhook_deliveries set status = 'cancelled' where subscription_id = $1 and status = 'pending'",
        [subscriptionId],
      );
      return settled;
    }
    const attempt = Number(head.attempts) + 1;
    const outcome = await post(head.callback_url, head.body, {
      [SIGNATURE_HEADER]: signBody(live.client_secret_hash, head.body),
      [DELIVERY_HEADER]: String(head.id),
      [ATTEMPT_HEADER]: String(attempt),
    }, policy.address);
    if (outcome.ok) {
      await db.query(
        `update public.webhook_deliveries set status = 'delivered', attempts = $2, last_status = $3, delivered_at = now()
          where id = $1`,
        [head.id, attempt, outcome.status],
      );
      settled++;
      continue;
    }
    if (attempt >= policy.attempts) {
      await db.query(
        "update public.webhook_deliveries set status = 'failed', attempts = $2, last_status = $3, last_error = $4 where id = $1",
        [head.id, attempt, outcome.status, outcome.error],
      );
      settled++;
      continue;
    }
    const backoffSeconds = (policy.retryMs * 2 ** (attempt - 1)) / 1000;
    await db.query(
      `update public.webhook_deliveries set attempts = $2, last_status = $3, last_error = $4,
         next_attempt_at = now() + make_interval(secs => $5::double precision) where id = $1`,
      [head.id, attempt, outcome.status, outcome.error, backoffSeconds],
    );
    return settled;
  }
  return settled;
}
