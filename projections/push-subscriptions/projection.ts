import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { pushSubscriptionCreated, pushSubscriptionDeleted } from "../../events/push-subscription/events.ts";
import type { Projection } from "../projection.ts";

/** The live webhook push subscriptions (at most one per application). */
export const pushSubscriptionsProjection: Projection = {
  name: "push-subscriptions",
  tables: ["push_subscriptions"],
  schema: `
    create table if not exists push_subscriptions (
      id bigint primary key,
      application_id bigint not null,
      callback_url text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create unique index if not exists push_subscriptions_application on push_subscriptions (application_id);
  `,
  isolated: true,
  handles: [pushSubscriptionCreated.type, pushSubscriptionDeleted.type],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === pushSubscriptionCreated.type) {
      const d = event.data;
      await tx.query(
        `insert into push_subscriptions (id, application_id, callback_url, created_at, updated_at)
         values ($1, $2, $3, $4, $4)`,
        [d.subscriptionId, d.applicationId, d.callbackUrl, event.recordedAt],
      );
      return;
    }
    if (event.type !== pushSubscriptionDeleted.type) return;
    const d = event.data;
    await tx.query("delete from push_subscriptions where id = $1", [d.subscriptionId]);
  },
};
