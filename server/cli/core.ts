import { systemActor } from "../actor.ts";
import { parseScope } from "../http/auth.ts";
import { createApplication, issueToken } from "../applications/commands.ts";
import { createAthlete, updateAthlete } from "../athletes/commands.ts";
import { activityTypeOf } from "../../shared/activity-types.ts";
import { type CliCommand, CliUsageError, optionalNumber, optionalString, requireInt, requireString } from "./command.ts";

export const coreCommands: CliCommand[] = [
  {
    name: "athlete create",
    summary: "Create an athlete.",
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
      "default-private": { type: "string", description: "true: new activities are private unless asked otherwise" },
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
      if (typeName !== undefined && !defaultActivityType) throw new CliUsageError("--default-activity-type: unknown activity type");
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
        defaultPrivate: bool("default-private"),
      }, systemActor("cli", athleteId));
      return { id: athleteId, changed };
    },
  },
  {
    name: "app create",
    summary: "Register an API application; prints its client id, client secret and public access token.",
    options: {
      name: { type: "string", description: "application name", required: true },
      "callback-domain": { type: "string", description: "authorization callback domain", required: true },
      owner: { type: "string", description: "owner athlete id", required: true },
      internal: { type: "boolean", description: "internal application (may create comments)" },
      kudos: { type: "boolean", description: "may give kudos" },
      challenges: { type: "boolean", description: "may use challenges" },
      website: { type: "string", description: "website" },
      description: { type: "string", description: "description" },
    },
    run(platform, o) {
      const application = {
        name: requireString(o, "name"),
        callbackDomain: requireString(o, "callback-domain"),
        ownerId: requireInt(o, "owner"),
        internal: o.internal === true,
        kudosEnabled: o.kudos === true,
        challengesEnabled: o.challenges === true,
        website: optionalString(o, "website"),
        description: optionalString(o, "description"),
      };
      return createApplication(platform, application, systemActor("cli", application.ownerId));
    },
  },
  {
    name: "token issue",
    summary: "Issue an access token for an athlete and application.",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      "client-id": { type: "string", description: "application (client) id", required: true },
      scope: { type: "string", description: "public, write, view_private or view_private,write", required: true },
      "expires-in": { type: "string", description: "seconds until it expires (default: never)" },
    },
    async run(platform, o) {
      const permissions = parseScope(requireString(o, "scope"));
      if (!permissions) throw new CliUsageError("--scope: unknown scope name");
      const expiresIn = optionalNumber(o, "expires-in");
      const athleteId = requireInt(o, "athlete");
      const applicationId = requireInt(o, "client-id");
      const access_token = await issueToken(platform, {
        athleteId,
        applicationId,
        permissions,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      }, systemActor("cli", athleteId, applicationId));
      return { access_token };
    },
  },
];
