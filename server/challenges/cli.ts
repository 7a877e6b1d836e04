import { createChallenge } from "./commands.ts";
import { systemActor } from "../actor.ts";
import { type CliCommand, CliUsageError, optionalString, requireString } from "../cli/command.ts";

export const challengeCommands: CliCommand[] = [
  {
    name: "challenge create",
    summary: "Create a challenge; prints its id.",
    options: {
      name: { type: "string", description: "challenge name", required: true },
      type: {
        type: "string",
        description: "CumulativeChallenge, SegmentChallenge or SingleActivityChallenge",
        required: true,
      },
      dimension: {
        type: "string",
        description: "distance, elevation, time or pace (pace: single-activity only)",
        required: true,
      },
      goal: { type: "string", description: "meters, seconds, or seconds per km for pace", required: true },
      start: { type: "string", description: "first day, YYYY-MM-DD (local dates of activities)", required: true },
      end: { type: "string", description: "last day, YYYY-MM-DD (inclusive)", required: true },
      "activity-type": { type: "string", description: "only activities of this type count (Ride, Run, …)" },
      segment: { type: "string", description: "segment id (segment challenges)" },
      "external-url": { type: "string", description: "joined at this address, not through the API" },
      description: { type: "string", description: "description" },
    },
    async run(platform, o) {
      const goalText = requireString(o, "goal");
      if (!/^\d+$/.test(goalText)) throw new CliUsageError("--goal must be a non-negative integer");
      const segment = optionalString(o, "segment");
      if (segment !== undefined && !/^\d+$/.test(segment)) {
        throw new CliUsageError("--segment must be a positive integer");
      }
      const id = await createChallenge(platform, {
        name: requireString(o, "name"),
        type: requireString(o, "type"),
        dimension: requireString(o, "dimension"),
        goal: Number(goalText),
        startDate: requireString(o, "start"),
        endDate: requireString(o, "end"),
        activityType: optionalString(o, "activity-type") ?? null,
        segmentId: segment === undefined ? null : Number(segment),
        externalUrl: optionalString(o, "external-url") ?? null,
        description: optionalString(o, "description"),
      }, systemActor("cli"));
      return { id };
    },
  },
];
