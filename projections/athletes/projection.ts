import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent, StoredEventOfType } from "../../events/index.ts";
import {
  athleteErased,
  athleteErasureCompleted,
  athletePasswordChanged,
  athletePasswordRehashed,
  athleteProfileUpdated,
  athleteRegistered,
} from "../../events/athlete/events.ts";
import type { Projection } from "../projection.ts";

type Registered = EventData<typeof athleteRegistered>;

const COLUMNS: Record<string, string> = {
  firstname: "firstname",
  lastname: "lastname",
  sex: "sex",
  premium: "premium",
  city: "city",
  state: "state",
  country: "country",
  birthdate: "birthdate",
  weight: "weight",
  ftp: "ftp",
  defaultActivityType: "default_activity_type",
  defaultVisibility: "default_visibility",
  measurementPreference: "measurement_preference",
};

/** Athletes: profile, credentials (hashed) and timestamps. */
export const athletesProjection: Projection = {
  name: "athletes",
  tables: ["athletes", "athlete_erasures"],
  schema: `
    create table if not exists athletes (
      id bigint primary key,
      firstname text not null,
      lastname text not null,
      email text not null,
      password_hash text not null,
      sex text,
      premium boolean not null default false,
      city text,
      state text,
      country text,
      birthdate text,
      weight double precision,
      ftp integer,
      default_activity_type text not null default 'Ride',
      default_visibility text not null default 'everyone',
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    -- Added after the first release: a database made before has the table without it.
    alter table athletes add column if not exists measurement_preference text not null default 'meters';
    create unique index if not exists athletes_email_unique on athletes (lower(email));
    -- Erased accounts (the id only) and whether the log's rewrite is done (the erasure job's queue).
    create table if not exists athlete_erasures (
      athlete_id bigint primary key,
      completed boolean not null
    );
  `,
  reads: [],
  handles: [
    athleteRegistered.type,
    athleteProfileUpdated.type,
    athletePasswordRehashed.type,
    athletePasswordChanged.type,
    athleteErased.type,
    athleteErasureCompleted.type,
  ],
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    // Consecutive registrations go in one insert; a profile update applies in its place.
    let registered: StoredEventOfType<"AthleteRegistered">[] = [];
    const insertRegistered = async () => {
      if (registered.length === 0) return;
      const rows = registered.map((e) => ({ ...(e.data), at: e.recordedAt }));
      await tx.query(
        `insert into athletes (id, firstname, lastname, email, password_hash, sex, premium, city,
           state, country, birthdate, weight, created_at, updated_at)
         select r."athleteId", r.firstname, r.lastname, r.email, r."passwordHash", r.sex, r.premium, r.city,
                r.state, r.country, r.birthdate, r.weight, r.at, r.at
           from jsonb_to_recordset($1::jsonb) as r("athleteId" bigint, firstname text, lastname text, email text,
             "passwordHash" text, sex text, premium boolean, city text, state text, country text, birthdate text,
             weight double precision, at timestamptz)`,
        [JSON.stringify(rows)],
      );
      registered = [];
    };
    for (const event of events) {
      if (event.type === athleteRegistered.type) {
        registered.push(event);
        continue;
      }
      await insertRegistered();
      await this.apply(tx, event);
    }
    await insertRegistered();
  },
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === athleteRegistered.type) {
      const d = event.data;
      await tx.query(
        `insert into athletes (id, firstname, lastname, email, password_hash, sex, premium, city,
           state, country, birthdate, weight, created_at, updated_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$13)`,
        [
          d.athleteId,
          d.firstname,
          d.lastname,
          d.email,
          d.passwordHash,
          d.sex,
          d.premium,
          d.city,
          d.state,
          d.country,
          d.birthdate,
          d.weight,
          event.recordedAt,
        ],
      );
      return;
    }
    if (event.type === athleteErased.type) {
      // The account is gone at once; the log's rewrite and a rebuild then remove the rest (docs/accounts.md).
      await tx.query("delete from athletes where id = $1", [event.data.athleteId]);
      await tx.query(
        "insert into athlete_erasures (athlete_id, completed) values ($1, false) on conflict (athlete_id) do nothing",
        [event.data.athleteId],
      );
      return;
    }
    if (event.type === athleteErasureCompleted.type) {
      await tx.query("update athlete_erasures set completed = true where athlete_id = $1", [event.data.athleteId]);
      return;
    }
    if (event.type === athletePasswordRehashed.type || event.type === athletePasswordChanged.type) {
      // Credentials, not the profile: updated_at (shown in the athlete representation) stays.
      const d = event.data;
      await tx.query("update athletes set password_hash = $2 where id = $1", [d.athleteId, d.passwordHash]);
      return;
    }
    if (event.type !== athleteProfileUpdated.type) return;
    const d: Record<string, unknown> = event.data;
    const sets: string[] = [];
    const params: unknown[] = [event.data.athleteId, event.recordedAt];
    for (const [key, column] of Object.entries(COLUMNS)) {
      if (key in d && d[key] !== undefined) {
        params.push(d[key]);
        sets.push(`${column} = $${params.length}`);
      }
    }
    await tx.query(
      `update athletes set ${[...sets, "updated_at = $2"].join(", ")} where id = $1`,
      params,
    );
  },
};
