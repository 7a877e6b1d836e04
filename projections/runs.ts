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
