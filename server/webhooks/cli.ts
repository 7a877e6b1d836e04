import { ensureOutbox } from "./outbox.ts";
import type { CliCommand } from "../cli/command.ts";
import { type SubscriptionStatus, subscriptionStatuses } from "./status.ts";

/** Push subscriptions and how their deliveries stand (the outbox's operational table). */
export const webhookCommands: CliCommand[] = [
  {
    name: "webhooks status",
    summary: "List push subscriptions with their pending, delivered, failed and cancelled deliveries.",
    options: {},
    async run(platform) {
      await ensureOutbox(platform.db);
      return { subscriptions: await subscriptionStatuses(platform.db) };
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
