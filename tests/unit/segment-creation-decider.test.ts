import { describe, expect, it } from "vitest";
import type { EventData } from "../../events/catalogue.ts";
import { DomainError, fold } from "../../events/decider.ts";
import { type CreationCommand, type CutFacts, segmentCreationDecider } from "../../events/segment/create.ts";
import { segmentCreated } from "../../events/segment/events.ts";
import { given } from "../helpers/decider.ts";

const data = (over: Partial<EventData<typeof segmentCreated>> = {}): EventData<typeof segmentCreated> => ({
  segmentId: 7,
  athleteId: 3,
  activityId: 11,
  name: "Climb",
  activityType: "Ride",
  points: [[45, 7], [45.01, 7]],
  altitudes: null,
  distance: 1112,
  averageGrade: 0,
  maximumGrade: 0,
  elevationHigh: null,
  elevationLow: null,
  totalElevationGain: 0,
  climbCategory: 0,
  startLatlng: [45, 7],
  endLatlng: [45.01, 7],
  polyline: "_ulqG_}uj@",
  city: null,
  state: null,
  country: null,
  private: false,
  hazardous: false,
  ...over,
});
const cut = (over: Partial<CutFacts> = {}): CutFacts => ({ fromPrivateActivity: false, stretch: "ok", ...over });

/** The field a refusal names (the 400's field), or "accepted". */
function refusedField(command: CreationCommand): string {
  try {
    segmentCreationDecider.decide(command, fold(segmentCreationDecider, []));
    return "accepted";
  } catch (error) {
    return error instanceof DomainError ? `${error.resource}.${error.field}` : String(error);
  }
}

describe("segment creation decider (given / when / then)", () => {
  it("records SegmentCreated with the name trimmed; an operator's segment has no cut", () => {
    given(segmentCreationDecider, []).when({ type: "create", segment: data({ name: "  Climb " }), cut: cut() })
      .then([segmentCreated.create(data({ name: "Climb" }))]);
    given(segmentCreationDecider, []).when({
      type: "create",
      segment: data({ athleteId: null, activityId: null }),
      cut: null,
    })
      .then([segmentCreated.create(data({ athleteId: null, activityId: null }))]);
  });

  it("refuses a second creation on the same stream (conflict)", () => {
    given(segmentCreationDecider, [segmentCreated.create(data())]).when({ type: "create", segment: data(), cut: null })
      .thenError("conflict", "already exists");
  });

  it("refuses an empty name, fewer than two points and a segment without length", () => {
    given(segmentCreationDecider, []).when({ type: "create", segment: data({ name: "   " }), cut: null }).thenError(
      "invalid",
      "missing",
    );
    given(segmentCreationDecider, []).when({ type: "create", segment: data({ points: [[45, 7]] }), cut: null })
      .thenError("invalid", "invalid");
    given(segmentCreationDecider, []).when({ type: "create", segment: data({ distance: 0 }), cut: null }).thenError(
      "invalid",
      "invalid",
    );
  });

  it("a segment cut from a private activity must be private; a private one may be", () => {
    given(segmentCreationDecider, []).when({ type: "create", segment: data(), cut: cut({ fromPrivateActivity: true }) })
      .thenError("invalid", "invalid");
    given(segmentCreationDecider, []).when({
      type: "create",
      segment: data({ private: true }),
      cut: cut({ fromPrivateActivity: true }),
    })
      .thenTypes(["SegmentCreated"]);
  });

  it("no stretch reaching into the owner's privacy zones, whatever the segment's privacy", () => {
    for (const stretch of ["start_in_zone", "end_in_zone"] as const) {
      for (const isPrivate of [false, true]) {
        given(segmentCreationDecider, []).when({
          type: "create",
          segment: data({ private: isPrivate }),
          cut: cut({ stretch }),
        })
          .thenError("invalid", "invalid");
      }
    }
  });

  it("each refusal names its field, and the checks run in order: name, points, private, zones", () => {
    expect(
      refusedField({
        type: "create",
        segment: data({ name: "" }),
        cut: cut({ fromPrivateActivity: true, stretch: "start_in_zone" }),
      }),
    )
      .toBe("Segment.name");
    expect(refusedField({ type: "create", segment: data({ distance: 0 }), cut: cut({ fromPrivateActivity: true }) }))
      .toBe("Segment.points");
    expect(
      refusedField({
        type: "create",
        segment: data(),
        cut: cut({ fromPrivateActivity: true, stretch: "start_in_zone" }),
      }),
    )
      .toBe("Segment.private");
    expect(refusedField({ type: "create", segment: data(), cut: cut({ stretch: "start_in_zone" }) })).toBe(
      "Segment.start_index",
    );
    expect(refusedField({ type: "create", segment: data(), cut: cut({ stretch: "end_in_zone" }) })).toBe(
      "Segment.end_index",
    );
    expect(refusedField({ type: "create", segment: data(), cut: cut() })).toBe("accepted");
  });
});
