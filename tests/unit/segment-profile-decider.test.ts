import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../events/catalogue.ts";
import { segmentCreated, segmentProfileMeasured } from "../../events/segment/events.ts";
import { profileDecider } from "../../events/segment/profile.ts";
import { given } from "../helpers/decider.ts";

const created = (altitudes: number[] | null) =>
  segmentCreated.create({
    segmentId: 1,
    athleteId: null,
    activityId: null,
    name: "Climb",
    activityType: "Ride",
    points: [[45, 7], [45.01, 7]],
    altitudes,
    distance: 1112,
    averageGrade: 0,
    maximumGrade: 0,
    elevationHigh: null,
    elevationLow: null,
    totalElevationGain: 0,
    climbCategory: 0,
    startLatlng: [45, 7],
    endLatlng: [45.01, 7],
    polyline: "",
    city: null,
    state: null,
    country: null,
    private: false,
    hazardous: false,
  });

const measurement = (source: "gps" | "barometric", activityId: number) => ({
  segmentId: 1,
  activityId,
  effortId: "9007199254741000",
  source,
  profile: [[0, 100], [1112, 150]] as [number, number][],
  averageGrade: 4.5,
  maximumGrade: 4.5,
  elevationHigh: 150,
  elevationLow: 100,
  totalElevationGain: 50,
  climbCategory: 0,
});

/** Runs the measurements in order over a segment's stream; returns the sources recorded. */
function run(altitudes: number[] | null, sources: ("gps" | "barometric")[]): string[] {
  const history: NewEvent[] = [created(altitudes)];
  sources.forEach((source, k) => {
    history.push(
      ...given(profileDecider, history).when({ type: "measure-profile", measurement: measurement(source, k + 1) })
        .events(),
    );
  });
  return history.filter((e) => e.type === segmentProfileMeasured.type).map((e) =>
    (e.data as { source: string }).source
  );
}

describe("segment profile decider", () => {
  it("measures a segment without altitudes once per source, a barometric one replacing a GPS one once", () => {
    expect(run(null, ["gps", "gps"])).toEqual(["gps"]);
    expect(run(null, ["gps", "barometric", "barometric", "gps"])).toEqual(["gps", "barometric"]);
    expect(run(null, ["barometric", "gps", "barometric"])).toEqual(["barometric"]);
  });

  it("never measures a segment that has altitudes of its own, nor one that does not exist", () => {
    expect(run([100, 150], ["gps", "barometric"])).toEqual([]);
    given(profileDecider, []).when({ type: "measure-profile", measurement: measurement("gps", 1) }).then([]);
  });
});
