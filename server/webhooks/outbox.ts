import { catalogued, type StoredEvent } from "../../events/index.ts";
import { isPrivateVisibility, type Visibility } from "../../shared/visibility.ts";
import { jsonArrays, tableExists } from "../../events/db/row-copy.ts";
import type { Db, Queryable } from "../../events/db/types.ts";
import { firstPositionAfterCursor, lastPosition, transactionIdAtOrBefore } from "../../events/log-queries.ts";
import { accessTokenIssued, accessTokensRevoked } from "../../events/application/events.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { pushSubscriptionCreated, pushSubscriptionDeleted } from "../../events/push-subscription/events.ts";
import { CATCH_UP_START, type CatchUpCursor, type EventStore } from "../../events/store.ts";
import type { RecordedEvent } from "../../events/types.ts";
import {
  activityAspect,
  type ActivityView,
  deauthorization,
  eventTime,
  webhookBody,
  type WebhookEvent,
} from "./payload.ts";

/**
 * The webhook outbox: a follower of the event log (EventStore.readAfter, which never skips a late
 * commit) that turns events into deliveries. Operational tables in `public` (not read models: they
 * depend on the clock and on delivery outcomes, and `cli replay` leaves them alone):
 *
 * - webhook_cursor: where the follower stands in the log (advanced in the same transaction that
 *   enqueues the deliveries of the events read, so a crash neither loses nor repeats an event);
 * - webhook_subscriptions / webhook_grants / webhook_activities: the follower's own view of the
 *   subscriptions, the athlete-and-application authorizations (view_private or not) and the
 *   activities' name/type/private, as of its cursor — so a lagging follower still judges each
 *   event by the state at that point of the log;
 * - webhook_deliveries: one row per (subscription, event) with the exact body, its status
 *   (pending, delivered, failed after the last attempt, cancelled when the subscription went),
 *   attempts, next attempt time, the last HTTP status and the last failure (kept after a success).
 */
export const OUTBOX_SCHEMA = `
create table if not exists public.webhook_cursor (
  name text primary key,
  transaction_id text not null,
  position bigint not null
);
create table if not exists public.webhook_subscriptions (
  subscription_id bigint primary key,
  application_id bigint not null,
  callback_url text not null,
  active boolean not null
);
create table if not exists public.webhook_grants (
  athlete_id bigint not null,
  application_id bigint not null,
  authorized boolean not null,
  view_private boolean not null,
  primary key (athlete_id, application_id)
);
create table if not exists public.webhook_activities (
  activity_id bigint primary key,
  athlete_id bigint not null,
  name text not null,
  type text not null,
  private boolean not null
);
-- Added with followers-only visibility: null on rows written before (their private flag says).
alter table public.webhook_activities add column if not exists visibility text;
create table if not exists public.webhook_deliveries (
  id bigserial primary key,
  subscription_id bigint not null,
  application_id bigint not null,
  callback_url text not null,
  body text not null,
  source_position bigint not null,
  status text not null default 'pending',
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index if not exists webhook_deliveries_pending on public.webhook_deliveries (subscription_id, id) where status = 'pending';
`;

const CURSOR = "log";

const ready = new WeakMap<Db, Promise<void>>();

/** Creates the outbox tables once per database (serialized like the platform's migrations). */
export function ensureOutbox(db: Db): Promise<void> {
  let done = ready.get(db);
  if (!done) {
    done = db.transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock(724312)");
      await tx.exec(OUTBOX_SCHEMA);
    });
    done.catch(() => ready.delete(db));
    ready.set(db, done);
  }
  return done;
}

export async function readCursor(q: Queryable): Promise<CatchUpCursor> {
  const [row] = await q.query<{ transaction_id: string; position: number }>(
    "select transaction_id, position from public.webhook_cursor where name = $1",
    [CURSOR],
  );
  return row ? { transactionId: row.transaction_id, position: Number(row.position) } : CATCH_UP_START;
}

/** Is there anything in the log the follower has not read? */
export async function followerBehind(db: Db, store: EventStore): Promise<boolean> {
  const { events } = await store.readAfter(await readCursor(db), 1);
  return events.length > 0;
}

/**
 * Reads up to `limit` events after the cursor and, in one transaction, updates the follower's
 * state, enqueues deliveries and moves the cursor (refusing if another follower moved it first).
 * Returns how many events were read.
 */
export async function followOnce(db: Db, store: EventStore, limit = 200): Promise<number> {
  const start = await readCursor(db);
  const { events, cursor } = await store.readAfter(start, limit);
  if (events.length === 0) return 0;
  await db.transaction(async (tx) => {
    const moved = await tx.query(
      `insert into public.webhook_cursor (name, transaction_id, position) values ($1, $2, $3)
       on conflict (name) do update set transaction_id = excluded.transaction_id, position = excluded.position
         where public.webhook_cursor.transaction_id = $4 and public.webhook_cursor.position = $5
       returning name`,
      [CURSOR, cursor.transactionId, cursor.position, start.transactionId, start.position],
    );
    if (moved.length === 0) throw new Error("webhook follower: cursor moved by another follower");
    for (const event of events) await applyEvent(tx, catalogued(event));
  });
  return events.length;
}

interface Audience {
  subscription_id: number;
  application_id: number;
  callback_url: string;
  view_private: boolean;
}

/** Active subscriptions of applications the athlete has authorized. */
async function audienceOf(tx: Queryable, athleteId: number): Promise<Audience[]> {
  const rows = await tx.query<Audience>(
    `select s.subscription_id, s.application_id, s.callback_url, g.view_private
       from public.webhook_subscriptions s
       join public.webhook_grants g on g.application_id = s.application_id
      where s.active and g.athlete_id = $1 and g.authorized
      order by s.subscription_id`,
    [athleteId],
  );
  return rows.map((r) => ({
    ...r,
    subscription_id: Number(r.subscription_id),
    application_id: Number(r.application_id),
  }));
}

async function enqueue(
  tx: Queryable,
  to: Omit<Audience, "view_private">,
  event: WebhookEvent,
  position: number,
): Promise<void> {
  await tx.query(
    `insert into public.webhook_deliveries (subscription_id, application_id, callback_url, body, source_position)
     values ($1, $2, $3, $4, $5)`,
    [to.subscription_id, to.application_id, to.callback_url, webhookBody(event), position],
  );
}

async function activityOf(tx: Queryable, activityId: number): Promise<(ActivityView & { athleteId: number }) | null> {
  const [row] = await tx.query<{ athlete_id: number; name: string; type: string; visibility: Visibility }>(
    `select athlete_id, name, type,
            coalesce(visibility, case when private then 'only_me' else 'everyone' end) as visibility
       from public.webhook_activities where activity_id = $1`,
    [activityId],
  );
  return row ? { athleteId: Number(row.athlete_id), name: row.name, type: row.type, visibility: row.visibility } : null;
}

/** Tells every subscribed, authorized application what it sees of an activity's change. */
async function announce(
  tx: Queryable,
  event: RecordedEvent,
  activityId: number,
  athleteId: number,
  before: ActivityView | null,
  after: ActivityView | null,
): Promise<void> {
  for (const to of await audienceOf(tx, athleteId)) {
    const seen = activityAspect(before, after, to.view_private);
    if (!seen) continue;
    await enqueue(tx, to, {
      aspect_type: seen.aspect,
      event_time: eventTime(event.recordedAt),
      object_id: activityId,
      object_type: "activity",
      owner_id: athleteId,
      subscription_id: to.subscription_id,
      updates: seen.updates,
    }, event.position);
  }
}

async function applyEvent(tx: Queryable, event: StoredEvent): Promise<void> {
  switch (event.type) {
    case pushSubscriptionCreated.type: {
      const d = event.data;
      await tx.query(
        `insert into public.webhook_subscriptions (subscription_id, application_id, callback_url, active)
         values ($1, $2, $3, true) on conflict (subscription_id) do nothing`,
        [d.subscriptionId, d.applicationId, d.callbackUrl],
      );
      return;
    }
    case pushSubscriptionDeleted.type: {
      const d = event.data;
      await tx.query("update public.webhook_subscriptions set active = false where subscription_id = $1", [
        d.subscriptionId,
      ]);
      await tx.query(
        "update public.webhook_deliveries set status = 'cancelled' where subscription_id = $1 and status = 'pending'",
        [d.subscriptionId],
      );
      return;
    }
    case accessTokenIssued.type: {
      const d = event.data;
      if (d.kind !== "access") return;
      const viewPrivate = d.scopes.includes("view_private");
      await tx.query(
        `insert into public.webhook_grants (athlete_id, application_id, authorized, view_private) values ($1, $2, true, $3)
         on conflict (athlete_id, application_id) do update
           set view_private = (public.webhook_grants.authorized and public.webhook_grants.view_private) or excluded.view_private,
               authorized = true`,
        [d.athleteId, d.applicationId, viewPrivate],
      );
      return;
    }
    case accessTokensRevoked.type: {
      const d = event.data;
      const [grant] = await tx.query<{ authorized: boolean }>(
        "select authorized from public.webhook_grants where athlete_id = $1 and application_id = $2",
        [d.athleteId, d.applicationId],
      );
      if (!grant?.authorized) return;
      await tx.query(
        "update public.webhook_grants set authorized = false, view_private = false where athlete_id = $1 and application_id = $2",
        [d.athleteId, d.applicationId],
      );
      const subscriptions = await tx.query<{ subscription_id: number; callback_url: string }>(
        "select subscription_id, callback_url from public.webhook_subscriptions where application_id = $1 and active",
        [d.applicationId],
      );
      for (const s of subscriptions) {
        const subscriptionId = Number(s.subscription_id);
        await enqueue(
          tx,
          { subscription_id: subscriptionId, application_id: d.applicationId, callback_url: s.callback_url },
          deauthorization(d.athleteId, subscriptionId, eventTime(event.recordedAt)),
          event.position,
        );
      }
      return;
    }
    case activityRecorded.type:
    case activityCreated.type: {
      const d = event.data;
      if (await activityOf(tx, d.activityId)) return;
      const after = { name: d.name, type: d.type, visibility: d.visibility };
      await tx.query(
        `insert into public.webhook_activities (activity_id, athlete_id, name, type, private, visibility)
         values ($1, $2, $3, $4, $5, $6)`,
        [d.activityId, d.athleteId, after.name, after.type, isPrivateVisibility(after.visibility), after.visibility],
      );
      await announce(tx, event, d.activityId, d.athleteId, null, after);
      return;
    }
    case activityUpdated.type: {
      const d = event.data;
      const before = await activityOf(tx, d.activityId);
      if (!before) return;
      const after = {
        name: d.name ?? before.name,
        type: d.type ?? before.type,
        visibility: d.visibility ?? before.visibility,
      };
      await tx.query(
        "update public.webhook_activities set name = $2, type = $3, private = $4, visibility = $5 where activity_id = $1",
        [d.activityId, after.name, after.type, isPrivateVisibility(after.visibility), after.visibility],
      );
      await announce(tx, event, d.activityId, before.athleteId, before, after);
      return;
    }
    case activityDeleted.type: {
      const d = event.data;
      const before = await activityOf(tx, d.activityId);
      if (!before) return;
      await tx.query("delete from public.webhook_activities where activity_id = $1", [d.activityId]);
      await announce(tx, event, d.activityId, before.athleteId, before, null);
      return;
    }
  }
}

/**
 * Copies the outbox into another store, inside the copy's transaction (cli copy-store:
 * server/ops/store-copy.ts): the follower's state and the deliveries row for row (each table that
 * the source has), the deliveries' id sequence, and the cursor (see copyCursor).
 */
export async function copyOutbox(source: Queryable, tx: Queryable): Promise<void> {
  if (await tableExists(source, "public.webhook_subscriptions")) {
    const rows = await source.query<{ row: string }>(
      "select row_to_json(t)::text as row from public.webhook_subscriptions t",
    );
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.webhook_subscriptions select * from json_populate_recordset(null::public.webhook_subscriptions, $1::json)",
        [batch],
      );
    }
  }
  if (await tableExists(source, "public.webhook_grants")) {
    const rows = await source.query<{ row: string }>("select row_to_json(t)::text as row from public.webhook_grants t");
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.webhook_grants select * from json_populate_recordset(null::public.webhook_grants, $1::json)",
        [batch],
      );
    }
  }
  if (await tableExists(source, "public.webhook_activities")) {
    const rows = await source.query<{ row: string }>(
      "select row_to_json(t)::text as row from public.webhook_activities t",
    );
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.webhook_activities select * from json_populate_recordset(null::public.webhook_activities, $1::json)",
        [batch],
      );
    }
  }
  if (await tableExists(source, "public.webhook_deliveries")) {
    const rows = await source.query<{ row: string }>(
      "select row_to_json(t)::text as row from public.webhook_deliveries t",
    );
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.webhook_deliveries select * from json_populate_recordset(null::public.webhook_deliveries, $1::json)",
        [batch],
      );
    }
    const [{ max }] = await tx.query<{ max: number | null }>("select max(id) as max from public.webhook_deliveries");
    if (max !== null) {
      await tx.query("select setval(pg_get_serial_sequence('public.webhook_deliveries', 'id'), $1::bigint)", [max]);
    }
  }
  if (await tableExists(source, "public.webhook_cursor")) await copyCursor(source, tx);
}

/**
 * The cursor is a (transaction id, position) of the source's log; the copied log has the target's
 * transaction ids. The follower resumes after the longest prefix of positions it had read (an
 * event it read past that point may be delivered once more; none is skipped).
 */
async function copyCursor(source: Queryable, tx: Queryable): Promise<void> {
  const [cursor] = await source.query<{ transaction_id: string; position: number }>(
    "select transaction_id, position from public.webhook_cursor where name = 'log'",
  );
  if (!cursor) return;
  const first = await firstPositionAfterCursor(source, cursor.transaction_id, cursor.position);
  const position = first === null ? await lastPosition(source) : first - 1;
  if (position === 0) return;
  const transactionId = await transactionIdAtOrBefore(tx, position);
  await tx.query(
    "insert into public.webhook_cursor (name, transaction_id, position) values ('log', $1, $2)",
    [transactionId, position],
  );
}
