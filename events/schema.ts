/**
 * The event log: one append-only table; updates, deletes and truncates are refused by the database,
 * except the deletes of an athlete's erasure (events/erasure.ts, docs/accounts.md).
 */
export const EVENT_STORE_SCHEMA = `
create table if not exists events (
  global_position bigint generated always as identity primary key,
  transaction_id xid8 not null default pg_current_xact_id(),
  stream_id text not null,
  stream_version integer not null,
  type text not null,
  schema_version integer not null,
  data jsonb not null,
  metadata jsonb not null default '{}'::jsonb,
  recorded_at timestamptz not null default now(),
  constraint events_stream_version unique (stream_id, stream_version)
);
create index if not exists events_transaction_order on events (transaction_id, global_position);
create index if not exists events_type on events (type, global_position);
create index if not exists events_recorded_at on events (recorded_at);

-- What a read model's bulk loader reads while rebuilding (projections/bulk.ts): the log's events with
-- their recorded time as the projections' handlers see it (the adapters keep milliseconds: \`at\`, and
-- \`at_text\` as JavaScript's toISOString writes it). Read only; the log's tables stay named in events/.
create or replace view replay_log as
  select global_position as position, stream_id, type, schema_version as version, data,
         date_trunc('milliseconds', recorded_at) as at,
         to_char(date_trunc('milliseconds', recorded_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at_text
    from events;

create table if not exists event_idempotency (
  key text primary key,
  stream_id text not null,
  first_position bigint not null,
  last_position bigint not null,
  next_version integer not null
);

create or replace function events_refuse_change() returns trigger language plpgsql as $$
begin
  -- The one sanctioned rewrite: an athlete's erasure (events/erasure.ts) deletes that athlete's
  -- events inside a transaction that named itself with set_config('events.erasure', …, true).
  if tg_op = 'DELETE' and coalesce(current_setting('events.erasure', true), '') like 'athlete-%' then
    return old;
  end if;
  raise exception 'the event log is append-only: % refused', tg_op using errcode = 'P0001';
end $$;
create or replace trigger events_no_update_delete before update or delete on events
  for each row execute function events_refuse_change();
create or replace trigger events_no_truncate before truncate on events
  for each statement execute function events_refuse_change();

create table if not exists blobs (
  sha256 text primary key,
  content bytea not null,
  size integer not null,
  created_at timestamptz not null default now()
);
`;
