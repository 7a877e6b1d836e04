import type { Companion, CompanionEvent, FileEvent } from "../../desktop/core/companion.ts";

/** Collects a companion's events and waits for the ones a test expects. */
export class EventLog {
  readonly events: CompanionEvent[] = [];
  #waiters: { test: (e: CompanionEvent[]) => boolean; resolve: () => void }[] = [];

  constructor(companion: Companion) {
    companion.on((event) => {
      this.events.push(event);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test(this.events)) return true;
        w.resolve();
        return false;
      });
    });
  }

  files(filter?: (e: FileEvent) => boolean): FileEvent[] {
    return this.events.filter((e): e is FileEvent => "path" in e && (!filter || filter(e)));
  }

  /** Resolves once the predicate holds over all events so far; rejects after `ms` with what was seen. */
  until(test: (events: CompanionEvent[]) => boolean, ms = 45_000, what = "expected events"): Promise<void> {
    if (test(this.events)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`timed out waiting for ${what}; saw:\n${this.events.map((e) => JSON.stringify(e)).join("\n")}`),
          ),
        ms,
      );
      this.#waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Waits until every named file had one of the given events. */
  settled(names: string[], events: string[], ms?: number): Promise<void> {
    return this.until(
      (all) => names.every((n) => all.some((e) => "path" in e && e.file === n && events.includes(e.event))),
      ms,
      `${names.join(", ")} to reach ${events.join("/")}`,
    );
  }
}
