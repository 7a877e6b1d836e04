import { describe, it } from "vitest";
import type { EventData } from "../../events/catalogue.ts";
import { activityDecider } from "../../events/activity/decide.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import {
  activityCropped,
  activityCropUndone,
  activitySplitFrom,
  type WindowFacts,
} from "../../events/activity/cropped.ts";
import { segmentEffortsRematched } from "../../events/segment/events.ts";
import { given } from "../helpers/decider.ts";

/** An uploaded ride from 10:00:00 to 11:00:00 UTC. */
const facts: WindowFacts = {
  startDate: "2024-05-06T10:00:00Z",
  startDateLocal: "2024-05-06T12:00:00Z",
  timezone: "(GMT+01:00) Europe/Paris",
  distance: 30000,
  movingTime: 3500,
  elapsedTime: 3600,
  totalElevationGain: 120,
  elevHigh: 80,
  elevLow: 20,
  startLatlng: [48.1, 2.1],
  endLatlng: [48.2, 2.2],
  averageSpeed: 8.57,
  maxSpeed: 14,
  averageCadence: null,
  averageTemp: null,
  averageWatts: null,
  maxWatts: null,
  weightedAverageWatts: null,
  kilojoules: null,
  deviceWatts: null,
  hasHeartrate: false,
  averageHeartrate: null,
  maxHeartrate: null,
  calories: 700,
  sufferScore: null,
  deviceName: "Garmin Edge 500",
  polyline: "abc",
  summaryPolyline: "ab",
  streamsSha256: "a".repeat(64),
  laps: [],
  splitsMetric: [],
  splitsStandard: [],
  bestEfforts: [],
};
const recorded: EventData<typeof activityRecorded> = {
  ...facts,
  activityId: 7,
  athleteId: 1,
  type: "Ride",
  name: "Morning ride",
  description: null,
  externalId: null,
  uploadId: 3,
  visibility: "everyone",
  trainer: false,
  commute: false,
  workoutType: null,
};
const later = { ...facts, startDate: "2024-05-06T10:10:00Z", startDateLocal: "2024-05-06T12:10:00Z" };
const w = (start: string, end: string) => ({ start: `2024-05-06T${start}Z`, end: `2024-05-06T${end}Z` });
const crop = (window: { start: string; end: string }, splitInto: number | null = null, athleteId = 1) => ({
  type: "crop" as const,
  activityId: 7,
  athleteId,
  window,
  splitInto,
  facts: later,
  efforts: null,
});
const cropped = (edit: number, window: { start: string; end: string }, splitInto: number | null = null) =>
  activityCropped.create({ activityId: 7, athleteId: 1, edit, window, splitInto, facts: later });
const efforts = {
  activityId: 7,
  athleteId: 1,
  activityType: "Ride",
  visibility: "everyone" as const,
  efforts: [],
  prCount: 0,
  achievementCount: 0,
};

describe("activity decider: crop and split (#47 item 5)", () => {
  const uploaded = [activityRecorded.create(recorded)];

  it("crops the owner's uploaded activity to a window inside it, numbering its edits", () => {
    given(activityDecider, uploaded).when(crop(w("10:10:00", "10:50:00"))).then([
      cropped(1, w("10:10:00", "10:50:00")),
    ]);
    // With its efforts re-matched, in the same append.
    given(activityDecider, uploaded).when({ ...crop(w("10:10:00", "11:00:00")), efforts }).then([
      cropped(1, w("10:10:00", "11:00:00")),
      segmentEffortsRematched.create(efforts),
    ]);
    // A second crop, inside the first one's window, is edit 2; so is a split.
    const once = [...uploaded, cropped(1, w("10:10:00", "10:50:00"))];
    given(activityDecider, once).when(crop(w("10:20:00", "10:50:00"))).then([cropped(2, w("10:20:00", "10:50:00"))]);
    given(activityDecider, once).when(crop(w("10:10:00", "10:30:00"), 8)).then([
      cropped(2, w("10:10:00", "10:30:00"), 8),
    ]);
  });

  it("refuses another athlete (404), a manual activity, a deleted one, and windows not strictly inside", () => {
    given(activityDecider, uploaded).when(crop(w("10:10:00", "10:50:00"), null, 2)).thenError("not_found", "invalid");
    given(activityDecider, [
      activityCreated.create({
        activityId: 7,
        athleteId: 1,
        name: "Manual",
        type: "Ride",
        startDate: facts.startDate,
        startDateLocal: facts.startDateLocal,
        timezone: facts.timezone,
        elapsedTime: 3600,
        distance: 0,
        description: null,
        visibility: "everyone",
        trainer: false,
        commute: false,
      }),
    ]).when(crop(w("10:10:00", "10:50:00"))).thenError("invalid", "not uploaded");
    given(activityDecider, [...uploaded, activityDeleted.create({ activityId: 7, athleteId: 1, uploadId: 3 })])
      .when(crop(w("10:10:00", "10:50:00"))).thenError("not_found", "invalid");
    given(activityDecider, uploaded).when(crop(w("09:59:00", "10:50:00"))).thenError(
      "invalid",
      "outside the recording",
    );
    given(activityDecider, uploaded).when(crop(w("10:10:00", "11:00:02"))).thenError(
      "invalid",
      "outside the recording",
    );
    given(activityDecider, uploaded).when(crop(w("10:30:00", "10:30:00"))).thenError(
      "invalid",
      "outside the recording",
    );
    given(activityDecider, uploaded).when(crop(w("10:00:00", "11:00:00"))).thenError("invalid", "keeps everything");
    // A window is inside the one the activity stands for now, not the whole file.
    const once = [...uploaded, cropped(1, w("10:10:00", "10:50:00"))];
    given(activityDecider, once).when(crop(w("10:05:00", "10:40:00"))).thenError("invalid", "outside the recording");
    // A split-off part stands for its own window only.
    const part = [
      activityRecorded.create({ ...recorded, startDate: "2024-05-06T10:30:00Z", elapsedTime: 1800 }),
      activitySplitFrom.create({ activityId: 7, athleteId: 1, fromActivityId: 6, window: w("10:30:00", "11:00:00") }),
    ];
    given(activityDecider, part).when(crop(w("10:20:00", "10:50:00"))).thenError("invalid", "outside the recording");
    given(activityDecider, part).when(crop(w("10:40:00", "10:50:00"))).thenTypes(["ActivityCropped"]);
  });

  it("undoes only the latest crop or split in effect, by its owner, with the window it replaced", () => {
    const twice = [...uploaded, cropped(1, w("10:10:00", "10:50:00")), cropped(2, w("10:10:00", "10:30:00"), 8)];
    const undo = (edit: number, athleteId = 1) => ({
      type: "undoCrop" as const,
      activityId: 7,
      athleteId,
      edit,
      facts: later,
      efforts: null,
    });
    given(activityDecider, twice).when(undo(2)).then([
      activityCropUndone.create({
        activityId: 7,
        athleteId: 1,
        edit: 2,
        window: w("10:10:00", "10:50:00"),
        splitInto: 8,
        facts: later,
      }),
    ]);
    given(activityDecider, twice).when(undo(1)).thenError("conflict", "not the latest");
    given(activityDecider, twice).when(undo(3)).thenError("not_found", "invalid");
    given(activityDecider, twice).when(undo(2, 2)).thenError("not_found", "invalid");
    given(activityDecider, uploaded).when(undo(1)).thenError("not_found", "invalid");
    // After undoing 2, 1 is the latest (back to the whole recording); undone twice is nothing to undo.
    const undone = [
      ...twice,
      activityCropUndone.create({
        activityId: 7,
        athleteId: 1,
        edit: 2,
        window: w("10:10:00", "10:50:00"),
        splitInto: 8,
        facts: later,
      }),
    ];
    given(activityDecider, undone).when(undo(2)).thenError("not_found", "invalid");
    given(activityDecider, undone).when(undo(1)).then([
      activityCropUndone.create({ activityId: 7, athleteId: 1, edit: 1, window: null, splitInto: null, facts: later }),
    ]);
    // Edit numbers are not reused after an undo.
    given(activityDecider, undone).when(crop(w("10:20:00", "10:40:00"))).then([cropped(3, w("10:20:00", "10:40:00"))]);
  });

  it("records a split's part once, with the original's gear", () => {
    const part = { ...recorded, activityId: 8, startDate: "2024-05-06T10:30:00Z", elapsedTime: 1800 };
    const command = {
      type: "recordSplit" as const,
      activity: part,
      fromActivityId: 7,
      window: w("10:30:00", "11:00:00"),
      gearId: "b12",
    };
    given(activityDecider, []).when(command).then([
      activityRecorded.create(part),
      activitySplitFrom.create({ activityId: 8, athleteId: 1, fromActivityId: 7, window: w("10:30:00", "11:00:00") }),
      activityUpdated.create({ activityId: 8, athleteId: 1, gearId: "b12" }),
    ]);
    given(activityDecider, []).when({ ...command, gearId: null }).thenTypes(["ActivityRecorded", "ActivitySplitFrom"]);
    given(activityDecider, []).when({ ...command, gearId: null, hideFromHome: true }).then([
      activityRecorded.create(part),
      activitySplitFrom.create({ activityId: 8, athleteId: 1, fromActivityId: 7, window: w("10:30:00", "11:00:00") }),
      activityUpdated.create({ activityId: 8, athleteId: 1, hideFromHome: true }),
    ]);
    given(activityDecider, [activityRecorded.create(part)]).when(command).then([]);
  });
});
