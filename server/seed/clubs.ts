import { systemActor } from "../actor.ts";
import { createChallenge, joinChallenge } from "../challenges/commands.ts";
import { createClub, joinClub } from "../clubs/commands.ts";
import type { Platform } from "../platform.ts";
import type { Demo } from "./demo.ts";

/** Demo: a public club of all demo athletes (owned by the first) and a challenge of the current month. */
export async function seedClubs(platform: Platform, demo: Demo): Promise<void> {
  const [owner, ...others] = demo.athletes;
  const clubId = await createClub(platform, {
    name: "Demo Riders",
    ownerId: owner.id,
    description: "Everyone in the demo",
    sportType: "cycling",
    city: "London",
    country: "United Kingdom",
  }, systemActor("seed"));
  for (const a of others) await joinClub(platform, clubId, a.id, systemActor("seed", a.id));
  const now = new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
  const challengeId = await createChallenge(platform, {
    name: "Ride 100 km this month",
    type: "CumulativeChallenge",
    dimension: "distance",
    goal: 100_000,
    startDate: first.toISOString().slice(0, 10),
    endDate: last.toISOString().slice(0, 10),
    activityType: "Ride",
    description: "Ride 100 km before the month ends.",
  }, systemActor("seed"));
  await joinChallenge(platform, challengeId, owner.id, systemActor("seed", owner.id));
  demo.examples.push(
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/clubs/${clubId}/members`,
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/challenges/${challengeId}/leaderboard`,
  );
}
