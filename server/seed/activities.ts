import { systemActor } from "../actor.ts";
import { addComment, createActivity, giveKudos, updateActivity } from "../activities/commands.ts";
import { addGear } from "../gear/commands.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import type { Demo } from "./demo.ts";

/** Demo: a bike and shoes, two manual activities of the first athlete, kudos and a comment. */
export async function seedActivities(platform: Platform, demo: Demo): Promise<void> {
  const [ada, eddy, grace] = demo.athletes;
  if (!ada || !eddy) return;
  const seed = systemActor("seed", ada.id);
  const bike = await addGear(platform, {
    athleteId: ada.id,
    kind: "bike",
    name: "Analytical Engine",
    brandName: "Babbage",
    frameType: 3,
    weight: 8.2,
    primary: true,
  }, seed);
  await addGear(platform, { athleteId: ada.id, kind: "shoe", name: "Trail shoes", primary: true }, seed);
  const ride = await nextId(platform.db, "activity");
  await createActivity(platform, {
    activityId: ride,
    athleteId: ada.id,
    name: "Morning ride to Richmond",
    type: "Ride",
    startDate: "2024-05-04T07:30:00Z",
    startDateLocal: "2024-05-04T08:30:00Z",
    timezone: "(GMT+01:00) UTC+01:00",
    elapsedTime: 5400,
    distance: 42000,
    description: "Sunny, light wind.",
    visibility: "everyone",
    trainer: false,
    commute: false,
  }, seed);
  await updateActivity(platform, ride, ada.id, { gearId: bike }, seed);
  const run = await nextId(platform.db, "activity");
  await createActivity(platform, {
    activityId: run,
    athleteId: ada.id,
    name: "Lunch run",
    type: "Run",
    startDate: "2024-05-06T11:00:00Z",
    startDateLocal: "2024-05-06T12:00:00Z",
    timezone: "(GMT+01:00) UTC+01:00",
    elapsedTime: 1800,
    distance: 5200,
    description: null,
    visibility: "everyone",
    trainer: false,
    commute: false,
  }, seed);
  for (const fan of [eddy, grace].filter(Boolean)) {
    await giveKudos(platform, ride, fan.id, systemActor("seed", fan.id));
  }
  await addComment(platform, ride, eddy.id, "Chapeau!", systemActor("seed", eddy.id));
  demo.examples.push(
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/athlete/activities`,
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/activities/${ride}`,
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/activities/${ride}/comments`,
  );
}
