/**
 * The redraw thread of a terminal's progress line (a worker started by progress.ts). It writes the
 * line straight to the terminal's file descriptor every REDRAW_MS, so the line keeps moving while
 * the CLI's thread runs one long statement of the embedded database (PGlite runs in that thread).
 */
import { writeSync } from "node:fs";
import { workerData } from "node:worker_threads";
import { LOCK, redrawText } from "./progress-line.ts";

const { buffer, fd, label, startedAt, redrawMs } = workerData as {
  buffer: SharedArrayBuffer;
  fd: number;
  label: string;
  startedAt: number;
  redrawMs: number;
};
const counts = new Float64Array(buffer);
const lock = new Int32Array(buffer);

const timer = setInterval(() => {
  // Free → held; a held lock (the CLI is writing) skips this redraw, a stopped one ends the thread.
  const was = Atomics.compareExchange(lock, LOCK, 0, 1);
  if (was === 2) return clearInterval(timer);
  if (was !== 0) return;
  try {
    writeSync(fd, redrawText(label, startedAt, counts));
  } catch {
    // The terminal went away: nothing to draw on.
  } finally {
    Atomics.compareExchange(lock, LOCK, 1, 0);
    Atomics.notify(lock, LOCK);
  }
}, redrawMs);
