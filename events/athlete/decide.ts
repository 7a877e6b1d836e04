import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import {
  athleteErased,
  athleteErasureCompleted,
  type AthleteEvent,
  athletePasswordChanged,
  athletePasswordRehashed,
  athleteProfileUpdated,
  athleteRegistered,
} from "./events.ts";

/** One athlete's account (stream athlete-<id>). */
export interface AthleteState {
  exists: boolean;
  erased?: boolean;
  erasureCompleted?: boolean;
}

type Profile = Omit<EventData<typeof athleteProfileUpdated>, "athleteId">;

/** What a registration is checked on (the password only by its length: it arrives hashed). */
export interface RegistrationInput {
  firstname: string;
  lastname: string;
  email: string;
  passwordLength: number;
  birthdate?: string | null;
  weight?: number | null;
}

export type AthleteCommand =
  | { type: "register"; athlete: EventData<typeof athleteRegistered>; input: RegistrationInput }
  | { type: "rehashPassword"; athleteId: number; passwordHash: string }
  | { type: "changePassword"; athleteId: number; passwordHash: string; passwordLength: number }
  | { type: "erase"; athleteId: number }
  | { type: "completeErasure"; result: EventData<typeof athleteErasureCompleted> }
  | { type: "updateProfile"; athleteId: number; changes: Profile };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const refuse = (field: string, code: string) => new DomainError("invalid", "Athlete", field, code);
const validWeight = (weight: number | null | undefined) =>
  weight === undefined || weight === null || (weight > 0 && weight < 500);

/**
 * The rules of a registration, in the order they are reported: names, e-mail, a password of at least
 * 8 characters, birthdate YYYY-MM-DD, weight. Also run before the (deliberately slow) password hash.
 */
export function checkRegistration(input: RegistrationInput): void {
  if (!input.firstname.trim()) throw refuse("firstname", "missing");
  if (!input.lastname.trim()) throw refuse("lastname", "missing");
  if (!EMAIL.test(input.email)) throw refuse("email", "invalid");
  if (input.passwordLength < 8) throw refuse("password", "too short");
  if (input.birthdate && !/^\d{4}-\d{2}-\d{2}$/.test(input.birthdate)) throw refuse("birthdate", "invalid");
  if (!validWeight(input.weight)) throw refuse("weight", "invalid");
}

/**
 * An athlete registers once, as `checkRegistration` says (e-mails are unique through the read
 * model's unique index, which refuses the append). Profile changes, password rehashes and changes
 * (at least 8 characters) and erasure (once) need an existing athlete;
 * a profile change that changes nothing records nothing.
 */
export const athleteDecider: Decider<AthleteState, AthleteCommand, AthleteEvent> = {
  initialState: () => ({ exists: false }),
  evolve(state, event: AthleteEvent) {
    if (event.type === athleteRegistered.type) return { exists: true };
    if (event.type === athleteErased.type) return { exists: false, erased: true };
    if (event.type === athleteErasureCompleted.type) return { ...state, erasureCompleted: true };
    return state;
  },
  decide(command, state) {
    switch (command.type) {
      case "register": {
        checkRegistration(command.input);
        if (state.exists) throw new DomainError("conflict", "Athlete", "id", "already exists");
        return [athleteRegistered.create(command.athlete)];
      }
      case "rehashPassword":
        if (!state.exists) throw new DomainError("not_found", "Athlete", "id", "invalid");
        return [athletePasswordRehashed.create({ athleteId: command.athleteId, passwordHash: command.passwordHash })];
      case "changePassword":
        if (!state.exists) throw new DomainError("not_found", "Athlete", "id", "invalid");
        if (command.passwordLength < 8) throw refuse("password", "too short");
        return [athletePasswordChanged.create({ athleteId: command.athleteId, passwordHash: command.passwordHash })];
      case "erase":
        // Once: an erased account is gone (its id is never drawn again).
        if (!state.exists) throw new DomainError("not_found", "Athlete", "id", "invalid");
        return [athleteErased.create({ athleteId: command.athleteId })];
      case "completeErasure":
        // Recorded once, after the rewrite; a second run (a resumed job) records nothing.
        if (!state.erased) throw new DomainError("not_found", "Athlete", "id", "invalid");
        return state.erasureCompleted ? [] : [athleteErasureCompleted.create(command.result)];
      case "updateProfile": {
        if (!state.exists) throw new DomainError("not_found", "Athlete", "id", "invalid");
        if (!validWeight(command.changes.weight)) throw refuse("weight", "invalid");
        const changes = Object.fromEntries(Object.entries(command.changes).filter(([, v]) => v !== undefined));
        if (Object.keys(changes).length === 0) return [];
        return [athleteProfileUpdated.create({ athleteId: command.athleteId, ...changes })];
      }
    }
  },
};
