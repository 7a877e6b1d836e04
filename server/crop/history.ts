import type { EventData } from "../../events/catalogue.ts";
import { activityRecorded } from "../../events/activity/events.ts";
import { activityReprocessed } from "../../events/activity/reprocessed.ts";
import {
  activityCropped,
  activityCropUndone,
  activitySplitFrom,
  type RecordingWindow,
  type WindowFacts,
  windowFacts,
} from "../../events/activity/cropped.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import { catalogued } from "../../events/index.ts";
import type { RecordedEvent } from "../../events/types.ts";

type Recorded = EventData<typeof activityRecorded>;
export type Matched = EventData<typeof segmentEffortsMatched>;

/** What an uploaded activity stands for at one point of its stream. */
export interface Standing {
  recorded: Recorded;
  /** Its measured facts, start included. */
  facts: WindowFacts;
  /** Its segment efforts as last matched (null: never matched). */
  efforts: Matched | null;
  /** The window of the original file (null: the whole file). */
  window: RecordingWindow | null;
  /** Every effort id the stream ever recorded (a new effort never takes one). */
  effortIds: Set<string>;
  /** The crops and splits in effect, oldest first. */
  edits: { edit: number; splitInto: number | null }[];
}

const FACT_KEYS = Object.keys(windowFacts.shape) as (keyof WindowFacts)[];

/** The measured facts (start included) of a recording's event. */
export function windowFactsOf(source: Recorded | WindowFacts): WindowFacts {
  const out: Record<string, unknown> = {};
  for (const key of FACT_KEYS) if (source[key] !== undefined) out[key] = source[key];
  return out as WindowFacts;
}

/**
 * Folds an activity's stream into what it stands for: its recording, then re-derivations
 * (reprocessing, crops, splits and their undoing) and matchings, in order. With `before`, stops at
 * the first event it accepts (the standing just before that event). Undefined for a stream without
 * ActivityRecorded (a manual activity).
 */
export function standingOf(
  events: readonly RecordedEvent[],
  before?: (event: ReturnType<typeof catalogued>) => boolean,
): Standing | undefined {
  let standing: Standing | undefined;
  for (const stored of events) {
    const e = catalogued(stored);
    if (before?.(e)) break;
    if (e.type === activityRecorded.type) {
      standing = {
        recorded: e.data,
        facts: windowFactsOf(e.data),
        efforts: null,
        window: null,
        effortIds: new Set(),
        edits: [],
      };
      continue;
    }
    if (!standing) continue;
    switch (e.type) {
      case activityReprocessed.type: {
        // Every measured fact but the start (which reprocessing keeps).
        const { startDate, startDateLocal, timezone } = standing.facts;
        standing.facts = { ...e.data.facts, startDate, startDateLocal, timezone };
        break;
      }
      case activityCropped.type:
        standing.facts = e.data.facts;
        standing.window = e.data.window;
        standing.edits.push({ edit: e.data.edit, splitInto: e.data.splitInto });
        break;
      case activityCropUndone.type: {
        const undone = e.data.edit;
        standing.facts = e.data.facts;
        standing.window = e.data.window;
        standing.edits = standing.edits.filter((x) => x.edit !== undone);
        break;
      }
      case activitySplitFrom.type:
        standing.window = e.data.window;
        break;
      case segmentEffortsMatched.type:
      case segmentEffortsRematched.type:
        standing.efforts = e.data;
        for (const effort of e.data.efforts) standing.effortIds.add(effort.effortId);
        break;
    }
  }
  return standing;
}

/** The window in ms since the epoch (null: the whole file). */
export function windowMs(window: RecordingWindow | null): { start: number; end: number } | undefined {
  return window ? { start: Date.parse(window.start), end: Date.parse(window.end) } : undefined;
}
