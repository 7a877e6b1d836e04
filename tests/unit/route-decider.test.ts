import { describe, expect, it } from "vitest";
import { routeDecider } from "../../events/route/decide.ts";
import { routeCreated, routeDeleted } from "../../events/route/events.ts";
import { courseName } from "../../server/athlete-routes/export.ts";
import { decodePolyline, routeGeometry } from "../../server/athlete-routes/geometry.ts";
import { given } from "../helpers/decider.ts";

const route = {
  routeId: 7,
  athleteId: 1,
  name: "Lake loop",
  description: "",
  type: 1 as const,
  subType: 1,
  private: false,
  activityId: null,
  polyline: "_p~iF~ps|U_ulLnnqC",
  altitudes: null,
  distance: 185_000,
  elevationGain: 0,
  estimatedMovingTime: 26_640,
};
const created = routeCreated.create(route);

describe("route decider", () => {
  it("creates a route once, trimming its name", () => {
    given(routeDecider, []).when({ type: "create", route: { ...route, name: "  Lake loop " } }).then([created]);
    given(routeDecider, [created]).when({ type: "create", route }).thenError("conflict", "already exists");
  });

  it("refuses a route without a name, a distance, or with a type Strava does not have", () => {
    given(routeDecider, []).when({ type: "create", route: { ...route, name: "  " } }).thenError("invalid", "missing");
    given(routeDecider, []).when({ type: "create", route: { ...route, distance: 0 } }).thenError("invalid", "invalid");
    given(routeDecider, []).when({ type: "create", route: { ...route, subType: 6 } }).thenError("invalid", "invalid");
    given(routeDecider, []).when({ type: "create", route: { ...route, type: 3 as unknown as 1 } }).thenError(
      "invalid",
      "invalid",
    );
  });

  it("deletes only its owner's route, once", () => {
    given(routeDecider, [created]).when({ type: "delete", routeId: 7, athleteId: 1 }).then([
      routeDeleted.create({ routeId: 7, athleteId: 1 }),
    ]);
    given(routeDecider, [created]).when({ type: "delete", routeId: 7, athleteId: 2 }).thenError(
      "forbidden",
      "forbidden",
    );
    given(routeDecider, [created, routeDeleted.create({ routeId: 7, athleteId: 1 })])
      .when({ type: "delete", routeId: 7, athleteId: 1 }).thenError("not_found", "invalid");
    given(routeDecider, []).when({ type: "delete", routeId: 7, athleteId: 1 }).thenError("not_found", "invalid");
  });
});

describe("route geometry", () => {
  it("measures a drawn line: Google's documented polyline example and a climb with hysteresis", () => {
    // Google's polyline documentation: (38.5, -120.2), (40.7, -120.95), (43.252, -126.453) → "_p~iF~ps|U_ulLnnqC_mqNvxq`@".
    const g = routeGeometry([[38.5, -120.2], [40.7, -120.95], [43.252, -126.453]], null);
    expect(g.polyline).toBe("_p~iF~ps|U_ulLnnqC_mqNvxq`@");
    expect(decodePolyline(g.polyline)).toEqual([[38.5, -120.2], [40.7, -120.95], [43.252, -126.453]]);
    // Great-circle legs computed independently (Python haversine, mean radius 6371 km): 252.924 + 535.981 = 788.906 km.
    expect(g.distance / 1000).toBeCloseTo(788.906, 0);
    expect(g.elevationGain).toBe(0);
    const climb = routeGeometry([[0, 0], [0, 0.001], [0, 0.002], [0, 0.003], [0, 0.004]], [
      100,
      100.5,
      102,
      101.6,
      110,
    ]);
    // Rises: +2 (100→102, once the 1 m threshold is passed), then from the low 101.6 to 110: +8.4.
    expect(climb.elevationGain).toBe(10.4);
  });

  it("drops repeated points and keeps altitudes aligned", () => {
    const g = routeGeometry([[1, 1], [1, 1], [1.001, 1]], [5, 6, 7]);
    expect(g.points).toEqual([[1, 1], [1.001, 1]]);
    expect(g.altitudes).toEqual([5, 7]);
  });

  it("names a TCX course as TCX v2 allows (a token of at most 15 characters)", () => {
    expect(courseName("  Morning   ride around the lake ")).toBe("Morning ride ar");
    expect(courseName("   ")).toBe("Route");
    expect([...courseName("🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴🚴")]).toHaveLength(15);
  });
});
