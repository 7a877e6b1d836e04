import { describe, expect, it } from "vitest";
import { goalDecider } from "../../events/goal/decide.ts";
import { goalDeleted, goalSet, MAX_GOALS } from "../../events/goal/events.ts";
import { periodKeys } from "../../projections/goals/projection.ts";
import { currentPeriods, localDate, timezoneOffsetSeconds } from "../../server/goals/periods.ts";
import { given } from "../helpers/decider.ts";

const goal = {
  goalId: 1,
  athleteId: 7,
  type: "Run" as const,
  period: "week" as const,
  dimension: "distance" as const,
  goal: 20_000,
};

describe("goal decider", () => {
  it("sets one goal per sport, period and dimension, within bounds and a bounded number; deletes one's own", () => {
    given(goalDecider, []).when({ type: "set", goal }).then([goalSet.create(goal)]);
    const set = [goalSet.create(goal)];
    given(goalDecider, set).when({ type: "set", goal: { ...goal, goalId: 2 } }).thenError("conflict", "already exists");
    given(goalDecider, set).when({ type: "set", goal: { ...goal, goalId: 2, period: "month" } }).then([
      goalSet.create({ ...goal, goalId: 2, period: "month" }),
    ]);
    given(goalDecider, []).when({ type: "set", goal: { ...goal, goal: 0 } }).thenError("invalid", "invalid");
    given(goalDecider, []).when({ type: "set", goal: { ...goal, dimension: "time", goal: 36_000_001 } })
      .thenError("invalid", "invalid");
    given(goalDecider, []).when({ type: "set", goal: { ...goal, dimension: "elevation", goal: 1_000_000 } })
      .then([goalSet.create({ ...goal, dimension: "elevation", goal: 1_000_000 })]);
    const many = Array.from(
      { length: MAX_GOALS },
      (_, k) =>
        goalSet.create({ ...goal, goalId: k + 1, type: "Run", goal: 1000 + k, period: "year", dimension: "time" }),
    );
    // (the same key repeated is fine for the fold: only the count matters here)
    given(goalDecider, many).when({ type: "set", goal: { ...goal, goalId: 99, type: "Swim" } })
      .thenError("invalid", "too many");
    given(goalDecider, set).when({ type: "delete", goalId: 1, athleteId: 7 }).then([
      goalDeleted.create({ goalId: 1, athleteId: 7 }),
    ]);
    given(goalDecider, [...set, goalDeleted.create({ goalId: 1, athleteId: 7 })])
      .when({ type: "set", goal: { ...goal, goalId: 3 } }).then([goalSet.create({ ...goal, goalId: 3 })]);
    given(goalDecider, set).when({ type: "delete", goalId: 5, athleteId: 7 }).thenError("not_found", "invalid");
  });
});

describe("goal periods", () => {
  it("keys an activity's local day by its week from Monday, month and year", () => {
    expect(periodKeys("2026-03-08")).toEqual(["w2026-03-02", "m2026-03", "y2026"]); // a Sunday
    expect(periodKeys("2026-03-09T00:30:00Z")).toEqual(["w2026-03-09", "m2026-03", "y2026"]); // a Monday
    expect(periodKeys("2027-01-01")).toEqual(["w2026-12-28", "m2027-01", "y2027"]); // a week across the year
  });

  it("takes today in the athlete's time zone: Monday there may be Sunday in UTC", () => {
    const sundayEvening = new Date("2026-03-08T20:00:00Z");
    expect(localDate("(GMT+13:00) Pacific/Auckland", sundayEvening)).toBe("2026-03-09");
    expect(localDate(null, sundayEvening)).toBe("2026-03-08");
    expect(localDate("(GMT-05:00) America/New_York", new Date("2026-03-09T03:00:00Z"))).toBe("2026-03-08");
    // A manual activity's offset-only zone; summer time by the zone's rules.
    expect(localDate("(GMT+02:00) UTC+02:00", new Date("2026-03-08T23:00:00Z"))).toBe("2026-03-09");
    expect(timezoneOffsetSeconds("(GMT+01:00) Europe/Paris", Date.parse("2026-07-01T12:00:00Z"))).toBe(7200);
    expect(currentPeriods("2026-03-09")).toEqual({
      week: { key: "w2026-03-09", start: "2026-03-09", end: "2026-03-15" },
      month: { key: "m2026-03", start: "2026-03-01", end: "2026-03-31" },
      year: { key: "y2026", start: "2026-01-01", end: "2026-12-31" },
    });
    expect(currentPeriods("2024-02-29").month.end).toBe("2024-02-29");
    expect(currentPeriods("2026-03-08").week).toEqual({ key: "w2026-03-02", start: "2026-03-02", end: "2026-03-08" });
  });
});
