import { systemActor } from "../actor.ts";
import { parseScope } from "../http/auth.ts";
import { createApplication, issueToken } from "./commands.ts";
import {
  type CliCommand,
  CliUsageError,
  optionalNumber,
  optionalString,
  requireInt,
  requireString,
} from "../cli/command.ts";

/** Registering applications and issuing tokens from the command line. */
export const applicationCommands: CliCommand[] = [
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
