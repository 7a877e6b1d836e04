import { setImmediate } from "node:timers";

/**
 * A budget for long loops on the event loop (reading a 56 MB request body, hashing a file): once
 * the loop has run `ms` since its last turn it yields, so other requests are answered in between.
 * Without it, chunks that are already buffered (a fast client's socket, a file in the page cache)
 * resolve back to back as microtasks and one upload held the loop 50–185 ms at a stretch.
 */
export class TurnBudget {
  #since = performance.now();
  constructor(readonly ms = 4) {}

  /** Yields (after pending I/O and timers) when this turn is spent; otherwise returns at once. */
  async spent(): Promise<void> {
    if (performance.now() - this.#since < this.ms) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}
