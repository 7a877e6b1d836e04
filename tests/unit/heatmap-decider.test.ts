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

const a = "a".repeat(64), b = "b".repeat(64), c = "c".repeat(64);

describe("heatmap decider: a built map follows its athlete's activities", () => {
  it("updates a built map, which stays done (and may be updated again), releasing the tracks it supersedes", () => {
    const first = heatmapTracksUpdated.create({ ...update, releasedTracksSha256s: [a] });
    given(heatmapDecider, built).when({ type: "update", ...update }).then([first]);
    const after = [...built, first];
    expect(fold(heatmapDecider, after)).toMatchObject({ status: "done", tracks: [b] });
    // The same tracks again (nothing changed): nothing to release.
    given(heatmapDecider, after).when({ type: "update", ...update, coveredPosition: 130 }).then([
      heatmapTracksUpdated.create({ ...update, coveredPosition: 130, releasedTracksSha256s: [] }),
    ]);
    given(heatmapDecider, after).when({ type: "update", ...update, tracksSha256: c, coveredPosition: 130 }).then([
      heatmapTracksUpdated.create({ ...update, tracksSha256: c, coveredPosition: 130, releasedTracksSha256s: [b] }),
    ]);
  });

  it("v1 updates released nothing: the first v2 update releases every earlier blob; a deletion the last", () => {
    const v1 = (sha: string) => {
      const data = heatmapTracksUpdated.upcasters[1]({ ...update, tracksSha256: sha });
      return { type: heatmapTracksUpdated.type, data } as ReturnType<typeof heatmapTracksUpdated.create>;
    };
    const old = [...built, v1(b), v1(c)];
    expect(fold(heatmapDecider, old).tracks).toEqual([a, b, c]);
    const d = "d".repeat(64);
    const next = heatmapTracksUpdated.create({ ...update, tracksSha256: d, releasedTracksSha256s: [a, b, c] });
    given(heatmapDecider, old).when({ type: "update", ...update, tracksSha256: d }).then([next]);
    given(heatmapDecider, [...old, next]).when({ type: "delete", ...ids }).then([
      heatmapDeleted.create({ ...ids, releasedTracksSha256s: [d] }),
    ]);
  });

  it("refuses to update a map still being built, or deleted", () => {
    given(heatmapDecider, built.slice(0, 4)).when({ type: "update", ...update }).thenError("conflict", "invalid");
    given(heatmapDecider, [...built, heatmapDeleted.create({ ...ids, releasedTracksSha256s: [a] })]).when({
      type: "update",
      ...update,
    }).thenError("not_found", "invalid");
  });
});
