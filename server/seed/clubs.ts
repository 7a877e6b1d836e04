import { handleCommand } from "../../events/decider.ts";
import { challengeDecider } from "../../events/challenge/decide.ts";
import { challengeStream } from "../../events/challenge/events.ts";
import { createChallenge } from "../challenges/commands.ts";
import { clubCommand, createClub } from "../clubs/commands.ts";
import type { Platform } from "../platform.ts";
import type { Demo } from "./index.ts";

/** Demo: a public club of all demo athletes (owned by the first) and a challenge of the current month. */
export async function seedClubs(platform: Platform, demo: Demo): Promise<void> {
  const [owner, ...others] = demo.athletes;
  const clubId = await createClub(platform, {
    name: "Demo Riders", ownerId: owner.id, description: "Everyone in the demo", sportType: "cycling",
    city: "London", country: "United Kingdom",
  }, { source: "seed" });
  for (const a of others) await clubCommand(platform, clubId, { type: "join", athleteId: a.id }, { athleteId: a.id, source: "seed" });
  const now = new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
  const challengeId = await createChallenge(platform, {
    name: "Ride 100 km this month", type: "CumulativeChallenge", dimension: "distance", goal: 100_000,
    startDate: first.toISOString().slice(0, 10), endDate: last.toISOString().slice(0, 10), activityType: "Ride",
    description: "Ride 100 km before the month ends.",
  }, "seed");
  await handleCommand(platform.store, challengeStream(challengeId), challengeDecider, { type: "join", athleteId: owner.id }, {
    metadata: { athleteId: owner.id, source: "seed" },
  });
  demo.examples.push(
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/clubs/${clubId}/members`,
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/challenges/${challengeId}/leaderboard`,
  );
}
