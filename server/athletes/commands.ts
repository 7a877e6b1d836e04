import { athleteDecider, checkRegistration } from "../../events/athlete/decide.ts";
import { resolveVisibility, type Visibility } from "../../shared/visibility.ts";
import { DomainError, handleCommand } from "../../events/decider.ts";
import { athleteStream, followStream } from "../../events/athlete/events.ts";
import { followDecider } from "../../events/follow/decide.ts";
import type { Queryable } from "../../events/db/types.ts";
import { activityDefaults, emailTaken } from "../../projections/athletes/queries.ts";
import { type ActivityType, activityTypeOf } from "../../shared/activity-types.ts";
import { UniqueViolationError } from "../../events/types.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
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

/**
 * Registers an athlete (sign-up page, CLI, demo; the CLI's actor unless told). Emails are unique,
 * case-insensitively.
 */
export async function createAthlete(
  platform: Platform,
  input: NewAthlete,
  actor: Actor = systemActor("cli"),
): Promise<number> {
  const registration = { ...input, passwordLength: input.password.length };
  checkRegistration(registration);
  // A taken e-mail is refused before the (deliberately slow) password hash; the unique index
  // still decides races.
  if (await emailTaken(platform.db, input.email.trim())) {
    throw new DomainError("conflict", "Athlete", "email", "already exists", "an athlete with this email exists");
  }
  const athleteId = await nextId(platform.db, "athlete");
  try {
    await handleCommand(platform.store, athleteStream(athleteId), athleteDecider, {
      type: "register",
      input: registration,
      athlete: {
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
      },
    }, appendOptions(actor));
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
export async function rehashPassword(
  platform: Platform,
  athleteId: number,
  passwordHash: string,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, athleteStream(athleteId), athleteDecider, {
    type: "rehashPassword",
    athleteId,
    passwordHash,
  }, appendOptions(actor));
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
  defaultVisibility?: Visibility;
  measurementPreference?: "feet" | "meters";
}

/** Changes an athlete's profile or settings (CLI, PUT /v3/athlete); nothing when nothing changes. */
export async function updateAthlete(
  platform: Platform,
  athleteId: number,
  changes: AthleteChanges,
  actor: Actor,
): Promise<boolean> {
  const { events } = await handleCommand(platform.store, athleteStream(athleteId), athleteDecider, {
    type: "updateProfile",
    athleteId,
    changes,
  }, appendOptions(actor));
  return events.length > 0;
}

/** `athleteId` follows `targetId` (not oneself; nothing when already following); answers whether anything changed. */
export function followAthlete(platform: Platform, athleteId: number, targetId: number, actor: Actor): Promise<boolean> {
  return follows(platform, "follow", athleteId, targetId, actor);
}

/** `athleteId` stops following `targetId` (nothing when not following); answers whether anything changed. */
export function unfollowAthlete(
  platform: Platform,
  athleteId: number,
  targetId: number,
  actor: Actor,
): Promise<boolean> {
  return follows(platform, "unfollow", athleteId, targetId, actor);
}

async function follows(
  platform: Platform,
  type: "follow" | "unfollow",
  athleteId: number,
  targetId: number,
  actor: Actor,
): Promise<boolean> {
  const { events } = await handleCommand(platform.store, followStream(athleteId), followDecider, {
    type,
    athleteId,
    targetId,
  }, appendOptions(actor));
  return events.length > 0;
}

/** The athlete's defaults for new activities (type of uploads that name none; who may see them). */
export async function athleteDefaults(
  db: Queryable,
  athleteId: number,
): Promise<{ activityType: ActivityType; visibility: Visibility }> {
  const row = await activityDefaults(db, athleteId);
  return {
    activityType: activityTypeOf(row?.default_activity_type ?? "Ride") ?? "Ride",
    visibility: row?.default_visibility ?? "everyone",
  };
}

/**
 * The visibility of a new activity from what its request asks (`visibility`, `private`; see
 * shared/visibility.ts resolveVisibility) and the athlete's default; a `private` that contradicts
 * `visibility` is a 400 {Activity, private, invalid}.
 */
export async function newActivityVisibility(
  db: Queryable,
  athleteId: number,
  asked: { visibility?: Visibility; private?: boolean },
): Promise<Visibility> {
  const resolved = resolveVisibility(asked, null, (await athleteDefaults(db, athleteId)).visibility);
  if (resolved === "conflict") {
    throw new DomainError("invalid", "Activity", "private", "invalid", "private does not match visibility");
  }
  return resolved;
}
