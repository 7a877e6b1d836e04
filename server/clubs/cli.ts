import { createClub, inviteToClub, setEnhancedPrivacy } from "./commands.ts";
import { systemActor } from "../actor.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { findClub } from "../../projections/clubs/queries.ts";
import { type CliCommand, CliUsageError, optionalString, requireInt, requireString } from "../cli/command.ts";

export const clubCommands: CliCommand[] = [
  {
    name: "club create",
    summary: "Create a club owned by an athlete (its first member and admin); prints its id.",
    options: {
      name: { type: "string", description: "club name", required: true },
      owner: { type: "string", description: "owner athlete id", required: true },
      private: { type: "boolean", description: "private club (joining needs an admin's approval or an invitation)" },
      "sport-type": { type: "string", description: "cycling (default), running, triathlon or other" },
      "club-type": { type: "string", description: "casual_club (default), racing_team, shop, company or other" },
      city: { type: "string", description: "city" },
      state: { type: "string", description: "state" },
      country: { type: "string", description: "country" },
      description: { type: "string", description: "description" },
    },
    async run(platform, o) {
      const id = await createClub(platform, {
        name: requireString(o, "name"),
        ownerId: requireInt(o, "owner"),
        private: o.private === true,
        sportType: optionalString(o, "sport-type"),
        clubType: optionalString(o, "club-type"),
        city: optionalString(o, "city"),
        state: optionalString(o, "state"),
        country: optionalString(o, "country"),
        description: optionalString(o, "description"),
      }, systemActor("cli"));
      return { id };
    },
  },
  {
    name: "club invite",
    summary: "Invite an athlete to a club: their next join makes them a member, even of a private club.",
    options: {
      club: { type: "string", description: "club id", required: true },
      athlete: { type: "string", description: "athlete id", required: true },
    },
    async run(platform, o) {
      const clubId = requireInt(o, "club");
      const athleteId = requireInt(o, "athlete");
      if (!(await findClub(platform.db, clubId))) throw new CliUsageError(`club ${clubId} does not exist`);
      if (!(await findAthlete(platform.db, athleteId))) throw new CliUsageError(`athlete ${athleteId} does not exist`);
      const changed = await inviteToClub(platform, clubId, athleteId, null, systemActor("cli"));
      return { club: clubId, athlete: athleteId, invited: true, changed };
    },
  },
  {
    name: "athlete enhanced-privacy",
    summary: "Turn an athlete's Enhanced Privacy on (hidden from non-members' club member lists) or off (--off).",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      off: { type: "boolean", description: "turn it off" },
    },
    async run(platform, o) {
      const athleteId = requireInt(o, "athlete");
      await setEnhancedPrivacy(platform, athleteId, o.off !== true, systemActor("cli", athleteId));
      return { athlete: athleteId, enhanced_privacy: o.off !== true };
    },
  },
];
