import { readFileSync, writeFileSync } from "node:fs";

/**
 * Peak resident memory of a process (Linux): VmHWM of /proc/PID/status, the high-water mark the
 * kernel keeps, which writing 5 to /proc/PID/clear_refs resets to the current RSS.
 */

/** Starts a new peak: the kernel resets VmHWM to the current RSS. */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

function statusKiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]);
}

/** Peak resident set size since the last reset, in MiB. */
export function peakRssMiB(pid: number): number {
  return statusKiB(pid, "VmHWM") / 1024;
}

/** Resident set size now, in MiB. */
export function rssMiB(pid: number): number {
  return statusKiB(pid, "VmRSS") / 1024;
}

/**
 * Polls `url` one request after another until stopped; the worst latency seen (ms) tells how long
 * the server's event loop was held while something else ran.
 */
export function healthPoller(
  url: string,
  pauseMs = 20,
): { stop(): Promise<{ worstMs: number; worstAt: number; polls: number }> } {
  let running = true;
  let worstMs = 0;
  /** When (performance.now()) the worst request was sent. */
  let worstAt = 0;
  let polls = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
      const ms = performance.now() - t0;
      if (ms > worstMs) [worstMs, worstAt] = [ms, t0];
      polls++;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { worstMs, worstAt, polls };
    },
  };
}
