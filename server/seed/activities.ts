import { activityStream } from "../../events/activity/events.ts";
import { activityDecider } from "../../events/activity/decide.ts";
import { handleCommand } from "../../events/decider.ts";
import { addGear } from "../gear/commands.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import type { Demo } from "./index.ts";

/** Demo: a bike and shoes, two manual activities of the first athlete, kudos and a comment. */
export async function seedActivities(platform: Platform, demo: Demo): Promise<void> {
  const [ada, eddy, grace] = demo.athletes;
  if (!ada || !eddy) return;
  const bike = await addGear(platform, { athleteId: ada.id, kind: "bike", name: "Analytical Engine", brandName: "Babbage", frameType: 3, weight: 8.2, primary: true }, "seed");
  await addGear(platform, { athleteId: ada.id, kind: "shoe", name: "Trail shoes", primary: true }, "seed");
  const meta = { metadata: { athleteId: ada.id, source: "seed" } };
  const ride = await nextId(platform.db, "activity");
  await handleCommand(platform.store, activityStream(ride), activityDecider, { type: "create", activity: {
    activityId: ride, athleteId: ada.id, name: "Morning ride to Richmond", type: "Ride",
    startDate: "2024-05-04T07:30:00Z", startDateLocal: "2024-05-04T08:30:00Z", timezone: "(GMT+01:00) UTC+01:00",
    elapsedTime: 5400, distance: 42000, description: "Sunny, light wind.", private: false, trainer: false, commute: false,
  } }, meta);
  await handleCommand(platform.store, activityStream(ride), activityDecider, { type: "update", activityId: ride, athleteId: ada.id, gearId: bike }, meta);
  const run = await nextId(platform.db, "activity");
  await handleCommand(platform.store, activityStream(run), activityDecider, { type: "create", activity: {
    activityId: run, athleteId: ada.id, name: "Lunch run", type: "Run",
    startDate: "2024-05-06T11:00:00Z", startDateLocal: "2024-05-06T12:00:00Z", timezone: "(GMT+01:00) UTC+01:00",
    elapsedTime: 1800, distance: 5200, description: null, private: false, trainer: false, commute: false,
  } }, meta);
  for (const fan of [eddy, grace].filter(Boolean)) {
    await handleCommand(platform.store, activityStream(ride), activityDecider, { type: "kudos", activityId: ride, athleteId: fan.id }, {
      metadata: { athleteId: fan.id, source: "seed" },
    });
  }
  const commentId = await nextId(platform.db, "comment");
  await handleCommand(platform.store, activityStream(ride), activityDecider, {
    type: "comment", activityId: ride, athleteId: eddy.id, commentId, text: "Chapeau!",
  }, { metadata: { athleteId: eddy.id, source: "seed" } });
  demo.examples.push(
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/athlete/activities`,
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/activities/${ride}`,
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/activities/${ride}/comments`,
  );
}
