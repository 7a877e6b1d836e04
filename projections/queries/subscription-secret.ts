import type { Queryable } from "../../events/db/types.ts";

/**
 * A live push subscription's application secret hash (push_subscriptions ⋈ applications), or
 * undefined once the subscription was deleted: webhook deliveries are signed with it.
 */
export async function liveSubscriptionSecret(
  db: Queryable,
  subscriptionId: number,
): Promise<{ client_secret_hash: string } | undefined> {
  const [live] = await db.query<{ client_secret_hash: string }>(
    `select a.client_secret_hash from push_subscriptions s join applications a on a.id = s.application_id
      where s.id = $1`,
    [subscriptionId],
  );
  return live;
}
