import { z } from "zod";
import { int, model, num } from "../http/schema.ts";
import { zSegmentEffort } from "./schema.ts";

/** Two efforts on a segment compared (ours: Strava's API has no such operation). */

const series = z.array(num.nullable()).nullable();

export const zEffortComparison = model(
  "SegmentEffortComparison",
  z.object({
    segment: z.object({ id: int, name: z.string(), distance: num }),
    /** Metres along the segment where the efforts are compared (0 … the segment's distance). */
    distance: z.array(num),
    /** The second effort's time minus the first's at each point, in seconds: positive, the second was behind. */
    gap: z.array(num),
    /** The gap at the finish: the difference of the elapsed times. */
    final_gap: int,
    efforts: z.array(z.object({
      effort: zSegmentEffort,
      /** Seconds since the effort's start at each point. */
      time: z.array(num),
      /** m/s, bpm and W at each point; null where the recording has no such channel (or it is withheld). */
      velocity_smooth: series,
      heartrate: series,
      watts: series,
    })),
  }),
  "Two efforts on one segment at the same points along it: each effort's time, speed, heart rate and power (where recorded), and the time gap between them. Each effort's distance is scaled to the segment's length; at the finish its time is its elapsed time.",
  {
    segment: { id: 229781, name: "Hawk Hill", distance: 2684.8 },
    distance: [0, 1342.4, 2684.8],
    gap: [0, 61.5, 139],
    final_gap: 139,
    efforts: [],
  },
);
