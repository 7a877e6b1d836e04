import { z } from "zod";
import { dateTime, int, model } from "../http/schema.ts";
import { zDetailedActivity } from "../activities/schema.ts";

/** Crop and split (ours: Strava's API has no such operations). */

const zEdit = z.object({
  edit: int,
  kind: z.enum(["crop", "split"]),
  start_date: dateTime,
  end_date: dateTime,
  split_activity_id: int.nullable(),
  created_at: dateTime,
});

export const zActivityEdits = model(
  "ActivityEdits",
  z.object({
    activity_id: int,
    croppable: z.boolean(),
    split_from: z.object({ activity_id: int, start_date: dateTime, end_date: dateTime }).nullable(),
    edits: z.array(zEdit),
  }),
  "The crops and splits in effect on an activity, oldest first; only the last can be undone (DELETE …/edits/{edit}). croppable: an uploaded activity (a manual one has no recording to crop). split_from: the activity this one was split from, and the window of the recording it stands for.",
  {
    activity_id: 1234,
    croppable: true,
    split_from: null,
    edits: [{
      edit: 1,
      kind: "split",
      start_date: "2024-05-06T07:08:09Z",
      end_date: "2024-05-06T08:30:00Z",
      split_activity_id: 1235,
      created_at: "2024-05-07T18:00:00Z",
    }],
  },
);

export const zSplitActivities = model(
  "SplitActivities",
  z.object({ activity: zDetailedActivity, split_activity: zDetailedActivity }),
  "The two activities of a split: the original, which keeps the part before the split time, and the new one made of the part after it.",
);
