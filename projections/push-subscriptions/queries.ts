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

/** Every subscription of every application, by id (the operator's status: server/webhooks/status.ts). */
export async function allSubscriptions(
  db: Queryable,
): Promise<Pick<PushSubscriptionRow, "id" | "application_id" | "callback_url">[]> {
  const rows = await db.query<Pick<PushSubscriptionRow, "id" | "application_id" | "callback_url">>(
    "select id, application_id, callback_url from push_subscriptions order by id",
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), application_id: Number(r.application_id) }));
}
