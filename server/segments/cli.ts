import { DomainError } from "../../events/decider.ts";
import { findActivity } from "../activities/read.ts";
import { pointsFromActivity } from "./create.ts";
import { createSegment } from "./commands.ts";
import { systemActor } from "../actor.ts";
import { parsePoints } from "./geometry.ts";
import { type CliCommand, CliUsageError, optionalString, requireString } from "../cli/command.ts";

function optionalIndex(o: Record<string, unknown>, name: string): number | undefined {
  const text = optionalString(o, name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new CliUsageError(`--${name} must be a non-negative integer`);
  return Number(text);
}

export const segmentCommands: CliCommand[] = [
  {
    name: "segment create",
    summary: "Create a segment from points (--points) or from a stretch of an activity (--from-activity with indexes).",
    options: {
      name: { type: "string", description: "segment name", required: true },
      "activity-type": {
        type: "string",
        description: "Ride or Run (with --points; taken from the activity otherwise)",
      },
      points: { type: "string", description: `"lat,lng;lat,lng;…" (optionally lat,lng,altitude)` },
      "from-activity": { type: "string", description: "activity id to cut the segment from" },
      "start-index": { type: "string", description: "first stream index (with --from-activity)" },
      "end-index": { type: "string", description: "last stream index (with --from-activity)" },
      city: { type: "string", description: "city" },
      state: { type: "string", description: "state" },
      country: { type: "string", description: "country" },
      private: { type: "boolean", description: "only its creator sees it (with --from-activity)" },
      hazardous: { type: "boolean", description: "mark as hazardous" },
    },
    async run(platform, o) {
      const name = requireString(o, "name");
      const place = {
        city: optionalString(o, "city") ?? null,
        state: optionalString(o, "state") ?? null,
        country: optionalString(o, "country") ?? null,
      };
      const pointsText = optionalString(o, "points");
      const fromActivity = optionalString(o, "from-activity");
      if ((pointsText === undefined) === (fromActivity === undefined)) {
        throw new CliUsageError("give either --points or --from-activity");
      }
      try {
        if (pointsText !== undefined) {
          const type = requireString(o, "activity-type");
          if (type !== "Ride" && type !== "Run") throw new CliUsageError("--activity-type must be Ride or Run");
          let parsed;
          try {
            parsed = parsePoints(pointsText);
          } catch (error) {
            throw new CliUsageError(`--points: ${(error as Error).message}`);
          }
          const id = await createSegment(platform, {
            name,
            activityType: type,
            ...parsed,
            athleteId: null,
            activityId: null,
            ...place,
            hazardous: o.hazardous === true,
          }, systemActor("cli"));
          return { id };
        }
        if (!/^\d+$/.test(fromActivity!)) throw new CliUsageError("--from-activity must be an activity id");
        const start = optionalIndex(o, "start-index");
        const end = optionalIndex(o, "end-index");
        if (start === undefined || end === undefined) {
          throw new CliUsageError("--start-index and --end-index are required with --from-activity");
        }
        const activity = await findActivity(platform.db, Number(fromActivity));
        if (!activity) throw new CliUsageError(`activity ${fromActivity} does not exist`);
        // The operator cuts as the owner would (view_private); the privacy engine's rules still hold.
        const cut = await pointsFromActivity(platform, activity, {
          viewer: { athleteId: activity.athlete_id, viewPrivate: true },
          startIndex: start,
          endIndex: end,
          privateSegment: o.private === true,
        });
        const id = await createSegment(
          platform,
          {
            name,
            ...cut,
            athleteId: activity.athlete_id,
            activityId: activity.id,
            ...place,
            private: o.private === true,
            hazardous: o.hazardous === true,
          },
          systemActor("cli", activity.athlete_id),
          cut.cut,
        );
        return { id };
      } catch (error) {
        if (error instanceof DomainError) throw new CliUsageError(`${error.field.replace("_", "-")}: ${error.code}`);
        throw error;
      }
    },
  },
];
