import type { Queryable } from "../../events/db/types.ts";

/** The queries of the push_subscriptions read model (projection.ts): the only SQL naming its table. */

export interface PushSubscriptionRow {
  id: number;
  application_id: number;
  callback_url: string;
  created_at: string;
  updated_at: string;
}

export async function subscriptionsOfApplication(db: Queryable, applicationId: number): Promise<PushSubscriptionRow[]> {
  const rows = await db.query<PushSubscriptionRow>(
    "select id, application_id, callback_url, created_at, updated_at from push_subscriptions where application_id = $1 order by id",
    [applicationId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), application_id: Number(r.application_id) }));
}

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

/** Every subscription with how its deliveries stand (joined with the webhook outbox, public.webhook_deliveries). */
export async function subscriptionStatuses(db: Queryable): Promise<SubscriptionStatus[]> {
  const rows = await db.query<SubscriptionStatus>(
    `select s.id as subscription_id, s.application_id, s.callback_url,
            count(*) filter (where d.status = 'pending')::int as pending,
            count(*) filter (where d.status = 'delivered')::int as delivered,
            count(*) filter (where d.status = 'failed')::int as failed,
            count(*) filter (where d.status = 'cancelled')::int as cancelled,
            (select x.last_error from public.webhook_deliveries x
              where x.subscription_id = s.id and x.last_error is not null order by x.id desc limit 1) as last_error
       from push_subscriptions s left join public.webhook_deliveries d on d.subscription_id = s.id
      group by s.id, s.application_id, s.callback_url
      order by s.id`,
  );
  return rows.map((r) => ({ ...r, subscription_id: Number(r.subscription_id), application_id: Number(r.application_id) }));
}
