import type { RebuildProgress } from "../../projections/runner.ts";
import type { CliIo } from "./command.ts";

/** How often a terminal's progress line is redrawn, whether or not a batch finished (ms). */
export const REDRAW_MS = 250;

/**
 * A progress bar for replays. On a terminal it is drawn at once ("preparing") and redrawn in place
 * every REDRAW_MS with the latest counts, elapsed time and rate, so it moves at least once a
 * second even while a batch is being applied (the rebuild yields to the event loop between its
 * transactions, which it keeps short). Otherwise (a pipe, a log) one line every 10 %.
 * Call the function with each progress report; `done()` stops the redraws (idempotent).
 */
export function progressBar(io: CliIo, label: string): ((p: RebuildProgress) => void) & { done(): void } {
  const started = performance.now();
  let lastDecile = -1;
  let latest: RebuildProgress | undefined;
  const line = () => {
    const seconds = (performance.now() - started) / 1000;
    if (!latest) return `${label}: preparing (schema, statistics, counting the log)… ${seconds.toFixed(1)} s`;
    const p = latest;
    const fraction = p.total ? p.applied / p.total : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const rate = p.applied / Math.max(seconds, 1e-9);
    return `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.applied}/${p.total} events, ${Math.round(rate)} events/s, ${seconds.toFixed(1)} s`;
  };
  // Pad so a shorter line fully covers the previous one.
  const draw = () => io.progress(`\r${line().padEnd(100)}`);
  let timer: ReturnType<typeof setInterval> | undefined;
  if (io.interactive) {
    draw();
    timer = setInterval(draw, REDRAW_MS);
    // Never keep the process alive for a progress line.
    (timer as { unref?: () => void }).unref?.();
  }
  const update = (p: RebuildProgress) => {
    latest = p;
    if (io.interactive) return;
    const decile = Math.floor((p.total ? p.applied / p.total : 1) * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      io.progress(`${line()}\n`);
    }
  };
  return Object.assign(update, {
    done() {
      if (timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
      draw();
    },
  });
}
