import { followStream } from "../../events/athlete/events.ts";
import { handleCommand } from "../../events/decider.ts";
import { followDecider } from "../../events/follow/decide.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { type CliCommand, CliUsageError, requireInt } from "../cli/command.ts";

async function follow(type: "follow" | "unfollow", platform: Parameters<CliCommand["run"]>[0], o: Record<string, unknown>) {
  const athleteId = requireInt(o, "athlete");
  const targetId = requireInt(o, "target");
  for (const id of [athleteId, targetId]) {
    if (!(await findAthlete(platform.db, id))) throw new CliUsageError(`athlete ${id} does not exist`);
  }
  const { events } = await handleCommand(platform.store, followStream(athleteId), followDecider, { type, athleteId, targetId }, {
    metadata: { athleteId, source: "cli" },
  });
  return { athlete: athleteId, target: targetId, changed: events.length > 0 };
}

const options = {
  athlete: { type: "string" as const, description: "the athlete who follows", required: true },
  target: { type: "string" as const, description: "the athlete followed", required: true },
};

export const followCommands: CliCommand[] = [
  { name: "follow", summary: "Make an athlete follow another.", options, run: (p, o) => follow("follow", p, o) },
  { name: "unfollow", summary: "Make an athlete stop following another.", options, run: (p, o) => follow("unfollow", p, o) },
];
