import type { Queryable } from "../../events/db/types.ts";
import { isOneOf, type StoredEvent } from "../../events/index.ts";
import { athleteFollowed, athleteUnfollowed } from "../../events/athlete/events.ts";
import type { Projection } from "../projection.ts";
import { followsBulk } from "./bulk.ts";

/** Who follows whom (friend = the viewer follows them; follower = they follow the viewer). */
const HANDLES = [athleteFollowed.type, athleteUnfollowed.type];

export const followsProjection: Projection = {
  name: "follows",
  tables: ["follows"],
  schema: `
    create table if not exists follows (
      follower_id bigint not null,
      followee_id bigint not null,
      created_at timestamptz not null,
      primary key (follower_id, followee_id)
    );
    create index if not exists follows_followee on follows (followee_id);
  `,
  isolated: true,
  handles: HANDLES,
  bulk: followsBulk,
  async apply(tx: Queryable, event: StoredEvent) {
    if (!isOneOf(event, HANDLES)) return;
    const d = event.data;
    if (event.type === athleteFollowed.type) {
      await tx.query(
        "insert into follows (follower_id, followee_id, created_at) values ($1, $2, $3) on conflict do nothing",
        [d.athleteId, d.targetId, event.recordedAt],
      );
    } else {
      await tx.query("delete from follows where follower_id = $1 and followee_id = $2", [d.athleteId, d.targetId]);
    }
  },
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    const net = netFollows(events);
    const removed = net.filter((p) => p.action !== "keep");
    const added = net.filter((p) => p.action !== "delete");
    if (removed.length) {
      await tx.query(
        `delete from follows f using jsonb_to_recordset($1::jsonb) as r(follower bigint, followee bigint)
          where f.follower_id = r.follower and f.followee_id = r.followee`,
        [JSON.stringify(removed)],
      );
    }
    if (added.length) {
      await tx.query(
        `insert into follows (follower_id, followee_id, created_at)
         select r.follower, r.followee, r.at from jsonb_to_recordset($1::jsonb) as r(follower bigint, followee bigint, at timestamptz)
         on conflict do nothing`,
        [JSON.stringify(added)],
      );
    }
  },
};

/**
 * The net effect of a run of follow events per (follower, followee) pair, equal to applying them
 * one by one: "keep" = insert if absent (an existing row keeps its time), "replace" = the pair was
 * unfollowed in the run and followed again, "delete" = unfollowed last.
 */
export function netFollows(events: StoredEvent[]) {
  const pairs = new Map<
    string,
    { follower: number; followee: number; action: "keep" | "replace" | "delete"; at: string }
  >();
  for (const event of events) {
    if (!isOneOf(event, HANDLES)) continue;
    const d = event.data;
    const key = `${d.athleteId}:${d.targetId}`;
    const current = pairs.get(key);
    if (event.type === athleteUnfollowed.type) {
      pairs.set(key, { follower: d.athleteId, followee: d.targetId, action: "delete", at: event.recordedAt });
    } else if (!current) {
      pairs.set(key, { follower: d.athleteId, followee: d.targetId, action: "keep", at: event.recordedAt });
    } else if (current.action === "delete") {
      pairs.set(key, { ...current, action: "replace", at: event.recordedAt });
    }
  }
  return [...pairs.values()];
}

/** friend/follower of listed athletes relative to a viewer: "accepted" or null, as the real service writes them. */
export async function relationships(db: Queryable, viewerId: number, athleteIds: number[]) {
  const result = new Map<number, { friend: string | null; follower: string | null }>();
  for (const id of athleteIds) result.set(id, { friend: null, follower: null });
  if (athleteIds.length === 0) return result;
  const rows = await db.query<{ follower_id: number; followee_id: number }>(
    `select follower_id, followee_id from follows
      where (follower_id = $1 and followee_id = any($2::bigint[]))
         or (followee_id = $1 and follower_id = any($2::bigint[]))`,
    [viewerId, athleteIds],
  );
  for (const r of rows) {
    if (Number(r.follower_id) === viewerId) result.get(Number(r.followee_id))!.friend = "accepted";
    else result.get(Number(r.follower_id))!.follower = "accepted";
  }
  return result;
}
