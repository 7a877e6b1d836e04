import { describe, it } from "vitest";
import { athleteDecider } from "../../events/athlete/decide.ts";
import {
  athleteErased,
  athleteErasureCompleted,
  athletePasswordChanged,
  athletePasswordRehashed,
  athleteProfileUpdated,
  athleteRegistered,
} from "../../events/athlete/events.ts";
import { gearDecider } from "../../events/gear/decide.ts";
import { gearAdded, gearUpdated } from "../../events/gear/events.ts";
import { given } from "../helpers/decider.ts";

const athlete = {
  athleteId: 7,
  firstname: "Ada",
  lastname: "L",
  email: "ada@example.org",
  passwordHash: "scrypt$x",
  sex: null,
  premium: false,
  city: null,
  state: null,
  country: null,
  birthdate: "1990-01-02",
  weight: 60,
};
const input = {
  firstname: "Ada",
  lastname: "L",
  email: "ada@example.org",
  passwordLength: 12,
  birthdate: "1990-01-02",
  weight: 60,
};
const registered = athleteRegistered.create(athlete);

describe("athlete decider (given events / when command / then events or error)", () => {
  it("registers once, checking names, e-mail, password length, birthdate and weight in that order", () => {
    given(athleteDecider, []).when({ type: "register", athlete, input }).then([registered]);
    given(athleteDecider, [registered]).when({ type: "register", athlete, input }).thenError(
      "conflict",
      "already exists",
    );
    given(athleteDecider, []).when({ type: "register", athlete, input: { ...input, firstname: " " } }).thenError(
      "invalid",
      "missing",
    );
    given(athleteDecider, []).when({ type: "register", athlete, input: { ...input, email: "ada@", passwordLength: 3 } })
      .thenError("invalid", "invalid");
    given(athleteDecider, []).when({ type: "register", athlete, input: { ...input, passwordLength: 7, weight: -1 } })
      .thenError("invalid", "too short");
    given(athleteDecider, []).when({ type: "register", athlete, input: { ...input, birthdate: "2.1.1990" } }).thenError(
      "invalid",
      "invalid",
    );
    given(athleteDecider, []).when({ type: "register", athlete, input: { ...input, weight: 500 } }).thenError(
      "invalid",
      "invalid",
    );
  });

  it("updates an existing athlete's profile; nothing changed records nothing; rehashes only an existing athlete", () => {
    given(athleteDecider, [registered]).when({
      type: "updateProfile",
      athleteId: 7,
      changes: { city: "Turin", weight: undefined },
    })
      .then([athleteProfileUpdated.create({ athleteId: 7, city: "Turin" })]);
    given(athleteDecider, [registered]).when({ type: "updateProfile", athleteId: 7, changes: {} }).then([]);
    given(athleteDecider, [registered]).when({ type: "updateProfile", athleteId: 7, changes: { weight: 0 } }).thenError(
      "invalid",
      "invalid",
    );
    given(athleteDecider, []).when({ type: "updateProfile", athleteId: 7, changes: { city: "Turin" } }).thenError(
      "not_found",
      "invalid",
    );
    given(athleteDecider, [registered]).when({ type: "rehashPassword", athleteId: 7, passwordHash: "scrypt$y" })
      .then([athletePasswordRehashed.create({ athleteId: 7, passwordHash: "scrypt$y" })]);
    given(athleteDecider, []).when({ type: "rehashPassword", athleteId: 7, passwordHash: "scrypt$y" }).thenError(
      "not_found",
      "invalid",
    );
  });

  it("changes the password of an existing athlete (8 characters at least); erases an account once, and nothing after", () => {
    given(athleteDecider, [registered]).when({
      type: "changePassword",
      athleteId: 7,
      passwordHash: "scrypt$z",
      passwordLength: 8,
    })
      .then([athletePasswordChanged.create({ athleteId: 7, passwordHash: "scrypt$z" })]);
    given(athleteDecider, [registered]).when({
      type: "changePassword",
      athleteId: 7,
      passwordHash: "scrypt$z",
      passwordLength: 7,
    })
      .thenError("invalid", "too short");
    given(athleteDecider, []).when({
      type: "changePassword",
      athleteId: 7,
      passwordHash: "scrypt$z",
      passwordLength: 9,
    })
      .thenError("not_found", "invalid");
    const erased = athleteErased.create({ athleteId: 7 });
    given(athleteDecider, [registered]).when({ type: "erase", athleteId: 7 }).then([erased]);
    given(athleteDecider, [registered, erased]).when({ type: "erase", athleteId: 7 }).thenError("not_found", "invalid");
    given(athleteDecider, [registered, erased]).when({
      type: "changePassword",
      athleteId: 7,
      passwordHash: "scrypt$z",
      passwordLength: 9,
    })
      .thenError("not_found", "invalid");
    given(athleteDecider, [registered, erased]).when({
      type: "updateProfile",
      athleteId: 7,
      changes: { city: "Turin" },
    })
      .thenError("not_found", "invalid");
    const result = { athleteId: 7, events: 12, streams: 4, blobs: 2 };
    // Completion is recorded once after the erasure (the registration is gone from the log by then).
    given(athleteDecider, [erased]).when({ type: "completeErasure", result }).then([
      athleteErasureCompleted.create(result),
    ]);
    given(athleteDecider, [erased, athleteErasureCompleted.create(result)]).when({ type: "completeErasure", result })
      .then([]);
    given(athleteDecider, [registered]).when({ type: "completeErasure", result }).thenError("not_found", "invalid");
  });
});

describe("gear decider", () => {
  const bike = {
    gearId: "b12",
    athleteId: 7,
    kind: "bike" as const,
    name: "Roadie",
    nickname: null,
    brandName: null,
    modelName: null,
    description: null,
    frameType: 3,
    weight: 8.2,
    primary: true,
  };
  const shoe = { ...bike, gearId: "g13", kind: "shoe" as const, frameType: null, weight: null };
  it("adds bikes and shoes; refuses a missing or long name, frame type or weight on shoes, bad frame types and weights, a repeated id", () => {
    given(gearDecider, []).when({ type: "add", gear: bike }).then([gearAdded.create(bike)]);
    given(gearDecider, [gearAdded.create(bike)]).when({ type: "add", gear: shoe }).then([gearAdded.create(shoe)]);
    given(gearDecider, []).when({ type: "add", gear: { ...bike, name: "" } }).thenError("invalid", "missing");
    given(gearDecider, []).when({ type: "add", gear: { ...bike, name: "x".repeat(256) } }).thenError(
      "invalid",
      "invalid",
    );
    given(gearDecider, []).when({ type: "add", gear: { ...shoe, weight: 0.3 } }).thenError("invalid", "invalid");
    given(gearDecider, []).when({ type: "add", gear: { ...bike, frameType: 5 } }).thenError("invalid", "invalid");
    given(gearDecider, []).when({ type: "add", gear: { ...bike, weight: 100 } }).thenError("invalid", "invalid");
    given(gearDecider, [gearAdded.create(bike)]).when({ type: "add", gear: bike }).thenError(
      "conflict",
      "already exists",
    );
  });

  it("updates the athlete's own gear: retiring takes primary away, retired gear is never primary, reminders in range", () => {
    const ids = { gearId: "b12", athleteId: 7 };
    const update = (changes: Record<string, unknown>) => ({ type: "update" as const, changes: { ...ids, ...changes } });
    const added = [gearAdded.create(bike)];
    given(gearDecider, added).when(update({ reminderDistance: 700_000 })).then([
      gearUpdated.create({ ...ids, reminderDistance: 700_000 }),
    ]);
    given(gearDecider, added).when(update({ reminderDistance: null })).then([
      gearUpdated.create({ ...ids, reminderDistance: null }),
    ]);
    given(gearDecider, added).when(update({ retired: true })).then([
      gearUpdated.create({ ...ids, retired: true, primary: false }),
    ]);
    const retired = [...added, gearUpdated.create({ ...ids, retired: true, primary: false })];
    // Retiring again changes nothing; putting back in use does; retired gear may not become primary.
    given(gearDecider, retired).when(update({ retired: true })).then([]);
    given(gearDecider, retired).when(update({ retired: false })).then([gearUpdated.create({ ...ids, retired: false })]);
    given(gearDecider, retired).when(update({ primary: true })).thenError("invalid", "retired");
    given(gearDecider, added).when(update({ retired: true, primary: true })).thenError("invalid", "retired");
    given(gearDecider, retired).when(update({ retired: false, primary: true })).then([
      gearUpdated.create({ ...ids, retired: false, primary: true }),
    ]);
    given(gearDecider, added).when(update({ reminderDistance: 0 })).thenError("invalid", "invalid");
    given(gearDecider, added).when(update({ reminderDistance: 100_000_001 })).thenError("invalid", "invalid");
    given(gearDecider, added).when(update({ name: "" })).thenError("invalid", "missing");
    given(gearDecider, added).when(update({ gearId: "g99" })).thenError("not_found", "invalid");
    given(gearDecider, added).when(update({})).then([]);
  });
});
