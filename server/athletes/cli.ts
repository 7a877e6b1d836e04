import { activityTypeOf } from "../../shared/activity-types.ts";
import { VISIBILITIES, type Visibility, visibilityOfPrivate } from "../../shared/visibility.ts";
import { systemActor } from "../actor.ts";
import { createAthlete, followAthlete, unfollowAthlete, updateAthlete } from "./commands.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import {
  type CliCommand,
  CliUsageError,
  optionalNumber,
  optionalString,
  requireInt,
  requireString,
} from "../cli/command.ts";

async function follow(
  move: typeof followAthlete,
  platform: Parameters<CliCommand["run"]>[0],
  o: Record<string, unknown>,
) {
  const athleteId = requireInt(o, "athlete");
  const targetId = requireInt(o, "target");
  for (const id of [athleteId, targetId]) {
    if (!(await findAthlete(platform.db, id))) throw new CliUsageError(`athlete ${id} does not exist`);
  }
  const changed = await move(platform, athleteId, targetId, systemActor("cli", athleteId));
  return { athlete: athleteId, target: targetId, changed };
}

const options = {
  athlete: { type: "string" as const, description: "the athlete who follows", required: true },
  target: { type: "string" as const, description: "the athlete followed", required: true },
};

/** Creating and changing athletes (the operator's way in before anyone signs up). */
export const athleteCommands: CliCommand[] = [
  {
    name: "athlete create",
    summary: "Create an athlete.",
    // The first athlete of a new platform may be created before the server ever ran.
    createsStore: true,
    options: {
      firstname: { type: "string", description: "first name", required: true },
      lastname: { type: "string", description: "last name", required: true },
      email: { type: "string", description: "email (unique)", required: true },
      password: { type: "string", description: "password (8 characters or more)", required: true },
      sex: { type: "string", description: "M or F" },
      premium: { type: "boolean", description: "premium athlete" },
      city: { type: "string", description: "city" },
      state: { type: "string", description: "state" },
      country: { type: "string", description: "country" },
      birthdate: { type: "string", description: "YYYY-MM-DD" },
      weight: { type: "string", description: "weight in kg" },
    },
    async run(platform, o) {
      const sex = optionalString(o, "sex");
      if (sex !== undefined && sex !== "M" && sex !== "F") throw new CliUsageError("--sex must be M or F");
      const id = await createAthlete(platform, {
        firstname: requireString(o, "firstname"),
        lastname: requireString(o, "lastname"),
        email: requireString(o, "email"),
        password: requireString(o, "password"),
        sex: sex as "M" | "F" | undefined,
        premium: o.premium === true,
        city: optionalString(o, "city"),
        state: optionalString(o, "state"),
        country: optionalString(o, "country"),
        birthdate: optionalString(o, "birthdate"),
        weight: optionalNumber(o, "weight"),
      }, systemActor("cli"));
      return { id };
    },
  },
  {
    name: "athlete update",
    summary: "Change an athlete's profile or defaults for new activities.",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      firstname: { type: "string", description: "first name" },
      lastname: { type: "string", description: "last name" },
      sex: { type: "string", description: "M or F" },
      premium: { type: "string", description: "true or false" },
      city: { type: "string", description: "city" },
      state: { type: "string", description: "state" },
      country: { type: "string", description: "country" },
      weight: { type: "string", description: "weight in kg" },
      ftp: { type: "string", description: "functional threshold power in watts" },
      "default-activity-type": { type: "string", description: "type of uploads that name none (e.g. Run)" },
      "default-visibility": {
        type: "string",
        description: "who may see new activities that do not say: everyone, followers_only or only_me",
      },
      "default-private": { type: "string", description: "true: only_me, false: everyone (older spelling)" },
    },
    async run(platform, o) {
      const bool = (name: string) => {
        const v = optionalString(o, name);
        if (v === undefined) return undefined;
        if (v !== "true" && v !== "false") throw new CliUsageError(`--${name} must be true or false`);
        return v === "true";
      };
      const sex = optionalString(o, "sex");
      if (sex !== undefined && sex !== "M" && sex !== "F") throw new CliUsageError("--sex must be M or F");
      const typeName = optionalString(o, "default-activity-type");
      const defaultActivityType = typeName === undefined ? undefined : activityTypeOf(typeName);
      if (typeName !== undefined && !defaultActivityType) {
        throw new CliUsageError("--default-activity-type: unknown activity type");
      }
      const ftp = optionalNumber(o, "ftp");
      const athleteId = requireInt(o, "athlete");
      const changed = await updateAthlete(platform, athleteId, {
        firstname: optionalString(o, "firstname"),
        lastname: optionalString(o, "lastname"),
        sex: sex as "M" | "F" | undefined,
        premium: bool("premium"),
        city: optionalString(o, "city"),
        state: optionalString(o, "state"),
        country: optionalString(o, "country"),
        weight: optionalNumber(o, "weight"),
        ftp: ftp === undefined ? undefined : Math.round(ftp),
        defaultActivityType,
        defaultVisibility: optionalString(o, "default-visibility") === undefined
          ? (bool("default-private") === undefined ? undefined : visibilityOfPrivate(bool("default-private")!))
          : visibilityOption(optionalString(o, "default-visibility")!),
      }, systemActor("cli", athleteId));
      return { id: athleteId, changed };
    },
  },
];

function visibilityOption(value: string): Visibility {
  if (!(VISIBILITIES as readonly string[]).includes(value)) {
    throw new CliUsageError(`--default-visibility must be one of ${VISIBILITIES.join(", ")}`);
  }
  return value as Visibility;
}

export const followCommands: CliCommand[] = [
  { name: "follow", summary: "Make an athlete follow another.", options, run: (p, o) => follow(followAthlete, p, o) },
  {
    name: "unfollow",
    summary: "Make an athlete stop following another.",
    options,
    run: (p, o) => follow(unfollowAthlete, p, o),
  },
];
