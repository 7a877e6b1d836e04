import type { Queryable } from "../../events/db/types.ts";
import { allSubscriptions } from "../../projections/push-subscriptions/queries.ts";

/** A push subscription with how its deliveries stand (`cli webhooks status`). */
export interface SubscriptionStatus {
  subscription_id: number;
  application_id: number;
  callback_url: string;
  pending: number;
  delivered: number;
  failed: number;
  cancelled: number;
  last_error: string | null;
}

type DeliveryCounts = Pick<SubscriptionStatus, "pending" | "delivered" | "failed" | "cancelled" | "last_error">;

/**
 * Every subscription (the push_subscriptions read model) with its deliveries counted by status and
 * its last failure (the outbox's webhook_deliveries, this folder's operational table).
 */
export async function subscriptionStatuses(db: Queryable): Promise<SubscriptionStatus[]> {
  const subscriptions = await allSubscriptions(db);
  const counts = await deliveryCounts(db, subscriptions.map((s) => s.id));
  return subscriptions.map((s) => ({
    subscription_id: s.id,
    application_id: s.application_id,
    callback_url: s.callback_url,
    ...(counts.get(s.id) ?? { pending: 0, delivered: 0, failed: 0, cancelled: 0, last_error: null }),
  }));
}

/** The deliveries of these subscriptions counted by status, with each one's last failure. */
async function deliveryCounts(db: Queryable, subscriptionIds: number[]): Promise<Map<number, DeliveryCounts>> {
  const rows = await db.query<DeliveryCounts & { subscription_id: number }>(
    `select d.subscription_id,
            count(*) filter (where d.status = 'pending')::int as pending,
            count(*) filter (where d.status = 'delivered')::int as delivered,
            count(*) filter (where d.status = 'failed')::int as failed,
            count(*) filter (where d.status = 'cancelled')::int as cancelled,
            (select x.last_error from public.webhook_deliveries x
              where x.subscription_id = d.subscription_id and x.last_error is not null order by x.id desc limit 1) as last_error
       from public.webhook_deliveries d
      where d.subscription_id = any($1::bigint[])
      group by d.subscription_id`,
    [subscriptionIds],
  );
  return new Map(rows.map(({ subscription_id, ...counts }) => [Number(subscription_id), counts]));
}
