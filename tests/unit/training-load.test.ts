import { describe, expect, it } from "vitest";
import { activityLoad, fitnessSeries, maxHeartrateOn } from "../../projections/training-load/model.ts";
import { powerCurve } from "../../server/ingest/power-curve.ts";

/** The training-load formulas (docs/numbers.md, "Training load") and the power curve, by hand. */
describe("training load", () => {
  const athlete = { ftp: 250, birthdate: "1980-05-01", sex: "M" };

  it("power TSS: one hour at FTP is 100, and it scales with t · IF²", () => {
    const start = "2024-05-01T08:00:00Z";
    expect(activityLoad({ movingTime: 3600, normalizedPower: 250, averageHeartrate: 150, startDate: start }, athlete))
      .toEqual({ load: 100, method: "power" });
    // 90 min at NP 200 W: 5400 · 200 · 0.8 / (250 · 3600) · 100 = 96.
    expect(activityLoad({ movingTime: 5400, normalizedPower: 200, averageHeartrate: null, startDate: start }, athlete))
      .toEqual({ load: 96, method: "power" });
  });

  it("heart-rate TRIMP (Banister) without FTP or power, with the sex's factors", () => {
    const start = "2024-05-01T08:00:00Z";
    const max = maxHeartrateOn("1980-05-01", start); // 220 − 44
    expect(max).toBe(176);
    const hrr = (150 - 60) / (176 - 60);
    const men = 60 * hrr * 0.64 * Math.exp(1.92 * hrr);
    const women = 60 * hrr * 0.86 * Math.exp(1.67 * hrr);
    expect(
      activityLoad({ movingTime: 3600, normalizedPower: null, averageHeartrate: 150, startDate: start }, athlete).load,
    ).toBeCloseTo(men, 1);
    expect(
      activityLoad({ movingTime: 3600, normalizedPower: 240, averageHeartrate: 150, startDate: start }, {
        ...athlete,
        ftp: null,
        sex: "F",
      }),
    )
      .toEqual({ load: Math.round(women * 10) / 10, method: "heartrate" });
    expect(activityLoad({ movingTime: 3600, normalizedPower: null, averageHeartrate: null, startDate: start }, athlete))
      .toEqual({ load: 0, method: "none" });
  });

  it("CTL, ATL and TSB: exponentially weighted daily loads (42 and 7 days)", () => {
    const series = fitnessSeries(new Map([["2024-01-01", 100], ["2024-01-03", 50]]), "2024-01-04");
    expect(series.map((d) => d.date)).toEqual(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"]);
    let ctl = 0, atl = 0;
    for (const load of [100, 0, 50, 0]) {
      ctl += (load - ctl) / 42;
      atl += (load - atl) / 7;
    }
    const last = series.at(-1)!;
    expect(last.ctl).toBeCloseTo(ctl, 1);
    expect(last.atl).toBeCloseTo(atl, 1);
    expect(last.tsb).toBeCloseTo(ctl - atl, 1);
    expect(series[0]).toEqual({ date: "2024-01-01", load: 100, ctl: 2.4, atl: 14.3, tsb: -11.9 });
  });
});

describe("power curve", () => {
  it("the highest mean power over each duration, gaps longer than 5 s count 0 W", () => {
    // 1 Hz: 10 s at 100 W, 10 s at 300 W, then a 20 s gap (the sample at 20 s holds 5 s), 5 s at 200 W.
    const time = [...Array.from({ length: 21 }, (_, i) => i), ...Array.from({ length: 6 }, (_, i) => 40 + i)];
    const watts = [...Array(10).fill(100), ...Array(10).fill(300), 300, ...Array(6).fill(200)];
    const [p5, p10, p20, p60] = powerCurve({ time, watts }, [5, 10, 20, 60]);
    expect(p5).toBe(300);
    expect(p10).toBe(300);
    expect(p20).toBe(Math.round((5 * 100 + 15 * 300) / 20)); // 10 s at 300 W plus the held 5 s, then 100s before
    expect(p60).toBeNull(); // longer than the activity
  });
});
