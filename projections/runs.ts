import type { StoredEvent } from "../events/index.ts";
import { activityCreated, activityRecorded } from "../events/activity/events.ts";
import { activityUpdated } from "../events/activity/changes.ts";

/**
 * Applies a transaction's events in log order, gathering consecutive events that `keyOf` accepts
 * (it answers the key of the one row such an event upserts) into runs that `flushRun` writes with
 * one statement. A run ends before an event whose key it already holds and before any event
 * `keyOf` refuses (null), which `applyOne` applies alone; an event that changes nothing here
 * (`keyOf` answers false) is passed over without ending the run. The outcome equals applying each event
 * alone when every accepted event only upserts its own key's row, from event data and rows no
 * event of the run changes (tests/unit/replay-batch.test.ts compares both ways).
 */
export async function applyInRuns<E>(
  events: readonly E[],
  keyOf: (event: E) => string | null | false,
  flushRun: (run: E[]) => Promise<void>,
  applyOne: (event: E) => Promise<void>,
): Promise<void> {
  let run: E[] = [];
  const keys = new Set<string>();
  const flush = async () => {
    if (run.length === 0) return;
    const full = run;
    run = [];
    keys.clear();
    await flushRun(full);
  };
  for (const event of events) {
    const key = keyOf(event);
    if (key === false) continue;
    if (key === null) {
      await flush();
      await applyOne(event);
      continue;
    }
    if (keys.has(key)) await flush();
    keys.add(key);
    run.push(event);
  }
  await flush();
}

/** An activity's recording or manual creation: the events whose rows activity runs upsert. */
export type ActivityStart = Extract<StoredEvent, { type: typeof activityRecorded.type | typeof activityCreated.type }>;

const isActivityStart = (event: StoredEvent): event is ActivityStart =>
  event.type === activityRecorded.type || event.type === activityCreated.type;

/**
 * `applyInRuns` for a projection keeping one row per activity: runs of recordings and creations
 * (keyed by activity), passing over edits that leave privacy alone (they change no such row);
 * every other event alone, in its place.
 */
export function applyActivityRuns(
  events: readonly StoredEvent[],
  flushRun: (run: ActivityStart[]) => Promise<void>,
  applyOne: (event: StoredEvent) => Promise<void>,
): Promise<void> {
  return applyInRuns(
    events,
    (e) =>
      isActivityStart(e)
        ? String(e.data.activityId)
        : e.type === activityUpdated.type && e.data.visibility === undefined
        ? false
        : null,
    (run) => flushRun(run.filter(isActivityStart)),
    applyOne,
  );
}
