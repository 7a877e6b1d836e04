import { describe, expect, it } from "vitest";
import { fold } from "../../events/decider.ts";
import { heatmapDecider } from "../../events/heatmap/decide.ts";
import {
  heatmapActivitiesSelected,
  heatmapBuildStarted,
  heatmapBuilt,
  heatmapDeleted,
  heatmapRequested,
  heatmapTracksGathered,
  heatmapTracksUpdated,
} from "../../events/heatmap/events.ts";
import { given } from "../helpers/decider.ts";

const ids = { mapId: 7, athleteId: 3 };
const requested = heatmapRequested.create({ ...ids, activityTypeIds: [1], startDateLocal: null, endDateLocal: null });
const built = [
  requested,
  heatmapBuildStarted.create(ids),
  heatmapActivitiesSelected.create({ ...ids, activityIds: [1, 2] }),
  heatmapTracksGathered.create({ ...ids, tracksSha256: "a".repeat(64), activitiesCount: 2, pointsCount: 40 }),
  heatmapBuilt.create({ ...ids, tilesCount: 30, centerLatlng: [46.5, 6.6], centerZoom: 12 }),
];
const update = {
  ...ids,
  tracksSha256: "b".repeat(64),
  addedActivityIds: [3],
  removedActivityIds: [1],
  activitiesCount: 2,
  pointsCount: 44,
  tilesCount: 31,
  centerLatlng: [46.5, 6.61] as [number, number],
  centerZoom: 12,
  coveredPosition: 120,
};

describe("heatmap decider: a built map follows its athlete's activities", () => {
  it("updates a built map, which stays done (and may be updated again)", () => {
    given(heatmapDecider, built).when({ type: "update", ...update }).then([heatmapTracksUpdated.create(update)]);
    const after = [...built, heatmapTracksUpdated.create(update)];
    expect(fold(heatmapDecider, after).status).toBe("done");
    given(heatmapDecider, after).when({ type: "update", ...update, coveredPosition: 130 }).thenTypes([
      "HeatmapTracksUpdated",
    ]);
  });

  it("refuses to update a map still being built, or deleted", () => {
    given(heatmapDecider, built.slice(0, 4)).when({ type: "update", ...update }).thenError("conflict", "invalid");
    given(heatmapDecider, [...built, heatmapDeleted.create(ids)]).when({ type: "update", ...update })
      .thenError("not_found", "invalid");
  });
});
