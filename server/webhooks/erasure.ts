import type { Queryable } from "../../events/db/types.ts";

/**
 * An athlete's erasure (server/accounts/commands.ts) in the webhook outbox's own tables (outbox.ts):
 * the follower's copy of the athlete's activities (names) and grants, and the deliveries about the
 * athlete's activities (`owner_id`, with updates such as a title) are deleted — nothing of the
 * athlete stays there but the deliveries telling applications the athlete deauthorized them (the
 * id only). Answers how many rows went.
 */
export async function forgetAthleteInOutbox(db: Queryable, athleteId: number): Promise<number> {
  const id = String(athleteId);
  const activities = await db.query(
    "delete from public.webhook_activities where athlete_id = $1 returning activity_id",
    [athleteId],
  );
  const grants = await db.query("delete from public.webhook_grants where athlete_id = $1 returning athlete_id", [
    athleteId,
  ]);
  const deliveries = await db.query(
    `delete from public.webhook_deliveries
      where (body like '%"owner_id":' || $1 || ',%' or body like '%"owner_id":' || $1 || '}%')
        and body not like '%"object_type":"athlete"%' returning id`,
    [id],
  );
  return activities.length + grants.length + deliveries.length;
}
