import { foreground, MAX_DEFER_MS } from "../event-loop-turn.ts";

/**
 * Turns for the import's loops that do no I/O of their own (entries failing at once, CSV slices):
 * after `ms` of work they wait for requests in flight (at most MAX_DEFER_MS), then yield with a
 * timer. Not with setImmediate (TurnBudget's yield): on Deno a loop yielding that way is run again
 * before the server's sockets are polled, and /health took 1.1–2.1 s behind such a loop where a
 * timer's yield took 0.3–0.7 s (2 shared cores, load average 20).
 */
export class ImportTurn {
  #since = performance.now();
  constructor(readonly ms = 8) {}

  async spent(): Promise<void> {
    if (foreground.busy) {
      await foreground.quiet(MAX_DEFER_MS);
    } else if (performance.now() - this.#since < this.ms) {
      return;
    }
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    this.#since = performance.now();
  }
}
