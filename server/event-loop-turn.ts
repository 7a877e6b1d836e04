/**
 * Requests answered ahead of bulk work. A GET that arrives while a 56 MB body is being read must
 * not take turns with it: each of its awaits (PGlite statements, the response) would otherwise let
 * another 4 ms of body reading run first, and on a busy machine its latency grew with every await.
 * Every request except large bodies (multipart uploads, archive imports) counts as foreground while
 * it is in flight; bulk loops pause between chunks until none is (for at most `MAX_DEFER_MS` at a
 * time, so a steady stream of requests slows an upload down but never stops it). While a body is
 * not read, the socket is not read either: TCP holds the client back.
 */
export class Foreground {
  #inFlight = 0;
  #waiting: (() => void)[] = [];

  get busy(): boolean {
    return this.#inFlight > 0;
  }

  enter(): void {
    this.#inFlight++;
  }

  leave(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (this.#inFlight > 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const wake of waiting) wake();
  }

  /** Resolves once no foreground request is in flight, or after `maxMs`. */
  quiet(maxMs: number): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, maxMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#waiting.push(done);
    });
  }
}

/** The process's requests (one server per process; tests that run several share it harmlessly). */
export const foreground = new Foreground();

/** The longest a bulk loop waits for foreground requests before it does one more turn. */
export const MAX_DEFER_MS = 25;

/**
 * A budget for long loops on the event loop (reading a 56 MB request body, hashing a file): once
 * the loop has run `ms` since its last turn it yields, so other requests are answered in between;
 * while any foreground request is in flight it waits for them first (see `Foreground`).
 * Without it, chunks that are already buffered (a fast client's socket, a file in the page cache)
 * resolve back to back as microtasks and one upload held the loop 50–185 ms at a stretch.
 * It yields with a timer, not `setImmediate`: on Deno a loop yielding with `setImmediate` runs
 * again before the server's sockets are polled, and `/health` waited 1.1–2.1 s behind such a loop
 * where a timer's yield gave 0.3–0.7 s (an archive import of 50,000 rows, 2 shared cores, load 20).
 */
export class TurnBudget {
  #since = performance.now();
  constructor(readonly ms = 4, readonly requests: Foreground = foreground) {}

  /** Yields when this turn is spent or a foreground request waits; otherwise returns at once. */
  async spent(): Promise<void> {
    if (this.requests.busy) {
      await this.requests.quiet(MAX_DEFER_MS);
      this.#since = performance.now();
      return;
    }
    if (performance.now() - this.#since < this.ms) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    this.#since = performance.now();
  }
}
