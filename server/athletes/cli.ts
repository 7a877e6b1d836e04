import { systemActor } from "../actor.ts";
import { followAthlete, unfollowAthlete } from "./commands.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { type CliCommand, CliUsageError, requireInt } from "../cli/command.ts";

async function follow(move: typeof followAthlete, platform: Parameters<CliCommand["run"]>[0], o: Record<string, unknown>) {
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

export const followCommands: CliCommand[] = [
  { name: "follow", summary: "Make an athlete follow another.", options, run: (p, o) => follow(followAthlete, p, o) },
  { name: "unfollow", summary: "Make an athlete stop following another.", options, run: (p, o) => follow(unfollowAthlete, p, o) },
];
