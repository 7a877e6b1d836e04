import { Worker } from "node:worker_threads";
import type { RebuildProgress } from "../../projections/runner.ts";
import type { CliIo } from "./command.ts";
import { APPLIED, HAS_COUNTS, LOCK, progressLine, redrawText, SHARED_BYTES, TOTAL } from "./progress-line.ts";

/** How often a terminal's progress line is redrawn, whether or not a batch finished (ms). */
export const REDRAW_MS = 250;

/**
 * A progress bar for replays. On a terminal it is drawn at once ("preparing") and redrawn in place
 * every REDRAW_MS with the latest counts, elapsed time and rate. When the terminal's file
 * descriptor is known (`io.progressFd`, local runs) a worker thread redraws it, so the line keeps
 * moving while this thread runs one long statement (PGlite runs here: a table comparison of verify,
 * a transaction slowed by other load); otherwise a timer of this thread does. Not on a terminal
 * (a pipe, a log): one line every 10 %.
 * Call the function with each progress report; `done()` stops the redraws and draws the last line
 * (idempotent).
 */
export function progressBar(io: CliIo, label: string): ((p: RebuildProgress) => void) & { done(): void } {
  const startedAt = Date.now();
  const shared = new SharedArrayBuffer(SHARED_BYTES);
  const counts = new Float64Array(shared);
  let lastDecile = -1;
  const draw = () => io.progress(redrawText(label, startedAt, counts));
  let stop: (() => void) | undefined;
  if (io.interactive) {
    draw();
    stop = io.progressFd === undefined
      ? redrawHere(draw)
      : redrawOffThread(io.progressFd, label, startedAt, shared, draw);
  }
  const update = (p: RebuildProgress) => {
    counts[APPLIED] = p.applied;
    counts[TOTAL] = p.total;
    counts[HAS_COUNTS] = 1;
    if (io.interactive) return;
    const decile = Math.floor((p.total ? p.applied / p.total : 1) * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      io.progress(`${progressLine(label, Date.now() - startedAt, p)}\n`);
    }
  };
  return Object.assign(update, {
    done() {
      if (!stop) return;
      stop();
      stop = undefined;
      // Nothing else draws now: the last line is this thread's.
      draw();
    },
  });
}

/** Redraws by a timer of this thread; never keeps the process alive. */
function redrawHere(draw: () => void): () => void {
  const timer = setInterval(draw, REDRAW_MS);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}

/**
 * Redraws from a worker thread writing to `fd` (progress-ticker.ts). Stopping takes the lock word
 * from free to stopped, waiting out a redraw in progress, so nothing is drawn after it. If the
 * worker cannot start, this thread's timer takes over.
 */
function redrawOffThread(
  fd: number,
  label: string,
  startedAt: number,
  shared: SharedArrayBuffer,
  draw: () => void,
): () => void {
  const lock = new Int32Array(shared);
  let fallback: (() => void) | undefined;
  const worker = new Worker(new URL("./progress-ticker.ts", import.meta.url), {
    workerData: { buffer: shared, fd, label, startedAt, redrawMs: REDRAW_MS },
  });
  worker.unref();
  worker.on("error", () => {
    if (Atomics.load(lock, LOCK) !== 2) fallback ??= redrawHere(draw);
  });
  return () => {
    // A redraw holds the lock for one write to the terminal: wait until it is free, then stop.
    while (Atomics.compareExchange(lock, LOCK, 0, 2) === 1) Atomics.wait(lock, LOCK, 1, 5);
    fallback?.();
    void worker.terminate();
  };
}
