import { ensureOutbox } from "../../webhooks/outbox.ts";
import type { CliCommand } from "../command.ts";

interface SubscriptionStatus {
  subscription_id: number;
  application_id: number;
  callback_url: string;
  pending: number;
  delivered: number;
  failed: number;
  cancelled: number;
  last_error: string | null;
}

/** Push subscriptions and how their deliveries stand (the outbox's operational table). */
export const webhookCommands: CliCommand[] = [
  {
    name: "webhooks status",
    summary: "List push subscriptions with their pending, delivered, failed and cancelled deliveries.",
    options: {},
    async run(platform) {
      await ensureOutbox(platform.db);
      const rows = await platform.db.query<SubscriptionStatus>(
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
      return { subscriptions: rows.map((r) => ({ ...r, subscription_id: Number(r.subscription_id), application_id: Number(r.application_id) })) };
    },
    format(result) {
      const { subscriptions } = result as { subscriptions: SubscriptionStatus[] };
      if (subscriptions.length === 0) return "no push subscriptions";
      return subscriptions.map((s) =>
        `subscription ${s.subscription_id} (application ${s.application_id}) → ${s.callback_url}: ` +
        `${s.pending} pending, ${s.delivered} delivered, ${s.failed} failed, ${s.cancelled} cancelled` +
        (s.last_error ? ` (last error: ${s.last_error})` : "")
      ).join("\n");
    },
  },
];
