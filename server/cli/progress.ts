import type { RebuildProgress } from "../../projections/runner.ts";
import type { CliIo } from "./command.ts";

/** A progress bar for replays: redrawn in place on a terminal, every 10 % otherwise. */
export function progressBar(io: CliIo, label: string): (p: RebuildProgress) => void {
  const started = performance.now();
  let lastDecile = -1;
  return (p) => {
    const fraction = p.total ? p.applied / p.total : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const rate = p.applied / Math.max((performance.now() - started) / 1000, 1e-9);
    const line = `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.applied}/${p.total} events, ${Math.round(rate)} events/s`;
    if (io.interactive) io.progress(`\r${line}`);
    else {
      const decile = Math.floor(fraction * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        io.progress(`${line}\n`);
      }
    }
  };
}
