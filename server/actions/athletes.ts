import { DomainError } from "../../events/decider.ts";
import { athleteRegistered, athleteStream } from "../../events/athlete/events.ts";
import { UniqueViolationError } from "../../events/types.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { hashPassword } from "../security.ts";

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
  const athleteId = await nextId(platform.db, "athlete");
  try {
    await platform.store.append(athleteStream(athleteId), 0, [
      athleteRegistered.create({
        athleteId,
        firstname: input.firstname.trim(),
        lastname: input.lastname.trim(),
        email: input.email.trim(),
        passwordHash: await hashPassword(input.password),
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
