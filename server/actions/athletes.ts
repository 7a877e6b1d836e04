import { DomainError } from "../../events/decider.ts";
import { athletePasswordRehashed, athleteProfileUpdated, athleteRegistered, athleteStream } from "../../events/athlete/events.ts";
import type { Queryable } from "../../events/db/types.ts";
import { type ActivityType, activityTypeOf } from "../../shared/activity-types.ts";
import { UniqueViolationError } from "../../events/types.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import type { Config } from "../config.ts";
import { hashPassword, PASSWORD_COST, type PasswordCost, TEST_PASSWORD_COST } from "../security.ts";

export interface NewAthlete {
  firstname: string;
  lastname: string;
  email: string;
  password: string;
  sex?: "M" | "F" | null;
  premium?: boolean;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  birthdate?: string | null;
  weight?: number | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Registers an athlete (sign-up page, CLI, demo). Emails are unique, case-insensitively. */
export async function createAthlete(platform: Platform, input: NewAthlete, source = "cli"): Promise<number> {
  if (!input.firstname.trim()) throw new DomainError("invalid", "Athlete", "firstname", "missing");
  if (!input.lastname.trim()) throw new DomainError("invalid", "Athlete", "lastname", "missing");
  if (!EMAIL.test(input.email)) throw new DomainError("invalid", "Athlete", "email", "invalid");
  if (input.password.length < 8) throw new DomainError("invalid", "Athlete", "password", "too short");
  if (input.birthdate && !/^\d{4}-\d{2}-\d{2}$/.test(input.birthdate)) {
    throw new DomainError("invalid", "Athlete", "birthdate", "invalid");
  }
  if (input.weight !== undefined && input.weight !== null && !(input.weight > 0 && input.weight < 500)) {
    throw new DomainError("invalid", "Athlete", "weight", "invalid");
  }
  // A taken e-mail is refused before the (deliberately slow) password hash; the unique index
  // still decides races.
  const [taken] = await platform.db.query("select 1 from athletes where lower(email) = lower($1)", [input.email.trim()]);
  if (taken) throw new DomainError("conflict", "Athlete", "email", "already exists", "an athlete with this email exists");
  const athleteId = await nextId(platform.db, "athlete");
  try {
    await platform.store.append(athleteStream(athleteId), 0, [
      athleteRegistered.create({
        athleteId,
        firstname: input.firstname.trim(),
        lastname: input.lastname.trim(),
        email: input.email.trim(),
        passwordHash: await hashPassword(input.password, passwordCostOf(platform.config)),
        sex: input.sex ?? null,
        premium: input.premium ?? false,
        city: input.city ?? null,
        state: input.state ?? null,
        country: input.country ?? null,
        birthdate: input.birthdate ?? null,
        weight: input.weight ?? null,
      }),
    ], { metadata: { source } });
  } catch (error) {
    if (error instanceof UniqueViolationError) {
      throw new DomainError("conflict", "Athlete", "email", "already exists", "an athlete with this email exists");
    }
    throw error;
  }
  return athleteId;
}

/** The scrypt parameters new password hashes are made with (OWASP unless a test server asks otherwise). */
export function passwordCostOf(config: Pick<Config, "passwordCost">): PasswordCost {
  return config.passwordCost === "test" ? TEST_PASSWORD_COST : PASSWORD_COST;
}

/** Replaces a weaker password hash by `passwordHash` (made at sign-in from the right password). */
export async function rehashPassword(platform: Platform, athleteId: number, passwordHash: string, source = "web"): Promise<void> {
  await platform.store.append(athleteStream(athleteId), "any", [athletePasswordRehashed.create({ athleteId, passwordHash })], {
    metadata: { athleteId, source },
  });
}

export interface AthleteChanges {
  firstname?: string;
  lastname?: string;
  sex?: "M" | "F" | null;
  premium?: boolean;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  weight?: number | null;
  ftp?: number | null;
  defaultActivityType?: ActivityType;
  defaultPrivate?: boolean;
}

/** Changes an athlete's profile or settings (CLI, PUT /v3/athlete); nothing when nothing changes. */
export async function updateAthlete(platform: Platform, athleteId: number, changes: AthleteChanges, source = "cli"): Promise<boolean> {
  const [row] = await platform.db.query("select 1 from athletes where id = $1", [athleteId]);
  if (!row) throw new DomainError("not_found", "Athlete", "id", "invalid");
  if (changes.weight !== undefined && changes.weight !== null && !(changes.weight > 0 && changes.weight < 500)) {
    throw new DomainError("invalid", "Athlete", "weight", "invalid");
  }
  const data = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  if (Object.keys(data).length === 0) return false;
  await platform.store.append(athleteStream(athleteId), "any", [athleteProfileUpdated.create({ athleteId, ...data })], {
    metadata: { athleteId, source },
  });
  return true;
}

/** The athlete's defaults for new activities (type of uploads that name none; privacy). */
export async function athleteDefaults(db: Queryable, athleteId: number): Promise<{ activityType: ActivityType; private: boolean }> {
  const [row] = await db.query<{ default_activity_type: string; default_private: boolean }>(
    "select default_activity_type, default_private from athletes where id = $1",
    [athleteId],
  );
  return {
    activityType: (activityTypeOf(row?.default_activity_type ?? "Ride") ?? "Ride"),
    private: row?.default_private ?? false,
  };
}
