import type { Queryable } from "../../events/db/types.ts";
import type { Visibility } from "../../shared/visibility.ts";

/** The queries of the athletes read model (projection.ts): the only SQL naming its table. */

export interface AthleteRow {
  id: number;
  firstname: string;
  lastname: string;
  email: string;
  sex: string | null;
  premium: boolean;
  city: string | null;
  state: string | null;
  country: string | null;
  birthdate: string | null;
  weight: number | null;
  ftp: number | null;
  /** "meters" or "feet" (the API's measurement_preference). */
  measurement_preference: string;
  /** Who may see the athlete's new activities unless they say otherwise. */
  default_visibility: Visibility;
  created_at: string;
  updated_at: string;
}

const ATHLETE_COLUMNS =
  "id, firstname, lastname, email, sex, premium, city, state, country, birthdate, weight, ftp, measurement_preference, default_visibility, created_at, updated_at";

/** The athletes table's columns for a row alias (for queries that join athletes to something else). */
export function athleteColumns(alias: string): string {
  return ATHLETE_COLUMNS.split(", ").map((c) => `${alias}.${c}`).join(", ");
}

export async function findAthlete(db: Queryable, id: number): Promise<AthleteRow | undefined> {
  const [row] = await db.query<AthleteRow>(`select ${ATHLETE_COLUMNS} from athletes where id = $1`, [id]);
  return row;
}

export async function findAthletes(db: Queryable, ids: number[]): Promise<Map<number, AthleteRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<AthleteRow>(
    `select ${ATHLETE_COLUMNS} from athletes where id = any($1::bigint[])`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [Number(r.id), r]));
}

/** Whether an athlete exists. */
export async function athleteExists(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query("select 1 from athletes where id = $1", [id]);
  return rows.length > 0;
}

/** Whether an athlete registered with this e-mail (case-insensitively). */
export async function emailTaken(db: Queryable, email: string): Promise<boolean> {
  const [taken] = await db.query("select 1 from athletes where lower(email) = lower($1)", [email]);
  return taken !== undefined;
}

/** The id and password hash of the athlete with this e-mail (case-insensitively), for signing in. */
export async function credentialsByEmail(
  db: Queryable,
  email: string,
): Promise<{ id: number; password_hash: string } | undefined> {
  const [row] = await db.query<{ id: number; password_hash: string }>(
    "select id, password_hash from athletes where lower(email) = lower($1)",
    [email],
  );
  return row;
}

/** The athlete's password hash (for a password change or an account deletion), or undefined. */
export async function passwordHashOf(db: Queryable, athleteId: number): Promise<string | undefined> {
  const [row] = await db.query<{ password_hash: string }>("select password_hash from athletes where id = $1", [
    athleteId,
  ]);
  return row?.password_hash;
}

/** Erased athletes whose log rewrite is not recorded as done (the erasure job's pending work). */
export async function pendingErasures(db: Queryable, limit: number): Promise<number[]> {
  const rows = await db.query<{ athlete_id: number }>(
    "select athlete_id from athlete_erasures where not completed order by athlete_id limit $1",
    [limit],
  );
  return rows.map((r) => Number(r.athlete_id));
}

/** Whether the athlete's erasure is recorded as complete. */
export async function erasureCompleted(db: Queryable, athleteId: number): Promise<boolean> {
  const [row] = await db.query<{ completed: boolean }>("select completed from athlete_erasures where athlete_id = $1", [
    athleteId,
  ]);
  return row?.completed === true;
}

/** The athlete's defaults for new activities, as stored (null when there is no such athlete). */
export async function activityDefaults(db: Queryable, athleteId: number) {
  const [row] = await db.query<{ default_activity_type: string; default_visibility: Visibility }>(
    "select default_activity_type, default_visibility from athletes where id = $1",
    [athleteId],
  );
  return row;
}

/** What deriving an upload's numbers needs to know about its athlete. */
export async function derivationProfile(db: Queryable, athleteId: number) {
  const [row] = await db.query<{
    premium: boolean;
    weight: number | null;
    birthdate: string | null;
    sex: string | null;
    default_activity_type: string;
  }>("select premium, weight, birthdate, sex, default_activity_type from athletes where id = $1", [athleteId]);
  return row;
}
