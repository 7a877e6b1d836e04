import type { Db } from "../../events/db/types.ts";
import { liveSubscriptionSecret } from "../../projections/queries/subscription-secret.ts";
import { CALLBACK_TIMEOUT_MS } from "./handshake.ts";
import { ATTEMPT_HEADER, DELIVERY_HEADER, SIGNATURE_HEADER, signBody } from "./signature.ts";

export interface DeliveryPolicy {
  /** Attempts per delivery, the first included (the real service: 3). */
  attempts: number;
  /** Back-off before attempt n + 1: retryMs × 2^(n − 1). */
  retryMs: number;
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

/** POSTs one body; 2xx within 2 s is an acknowledgement. Never throws. */
async function post(url: string, body: string, headers: Record<string, string>): Promise<{ ok: boolean; status: number | null; error: string | null }> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "fitness-platform-webhooks/1", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => {});
    const ok = response.status >= 200 && response.status <= 299;
    return { ok, status: response.status, error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    const name = (error as Error).name;
    return { ok: false, status: null, error: name === "TimeoutError" || name === "AbortError" ? "timeout" : String((error as Error).message).slice(0, 200) };
  }
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
    });
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
