import { closeSync, openSync, readSync } from "node:fs";
import { clearInterval, setInterval } from "node:timers";
import type { LogFormat } from "../config.ts";

/**
 * Event-loop stalls, for diagnosing latency (LOG_LOOP_STALLS_MS): a timer every `tickMs` that fires
 * late by more than the threshold reports how long the loop did not turn and, on Linux, how that
 * time splits between the main thread running (our code, WebAssembly, garbage collection) and the
 * main thread waiting for a core (runnable, but the kernel ran something else: another thread of
 * this process, another process, or, in a virtual machine, nothing while the host ran other guests).
 * The rest is time the thread slept in a system call.
 */
export interface LoopStall {
  /** When the loop last turned before the stall (epoch ms). */
  at: number;
  ms: number;
  /** Main-thread CPU during the stall (ms); null where the kernel does not say (not Linux). */
  cpuMs: number | null;
  /** Time the main thread was runnable but not on a core (ms); null where the kernel does not say. */
  waitMs: number | null;
}

/**
 * The main thread's CPU time and run-queue wait so far (Linux /proc/thread-self/schedstat, ns → ms),
 * read through a descriptor opened once by that thread: one read per tick, no open and close.
 */
function threadTimesReader(): { read(): { cpu: number; wait: number } | null; close(): void } {
  let fd: number | null = null;
  try {
    fd = openSync("/proc/thread-self/schedstat", "r");
  } catch {
    // Not Linux: no split.
  }
  const buffer = new Uint8Array(128);
  const decoder = new TextDecoder();
  return {
    read() {
      if (fd === null) return null;
      try {
        const n = readSync(fd, buffer, 0, buffer.byteLength, 0);
        const [cpu, wait] = decoder.decode(buffer.subarray(0, n)).split(" ").map(Number);
        return Number.isFinite(cpu) && Number.isFinite(wait) ? { cpu: cpu / 1e6, wait: wait / 1e6 } : null;
      } catch {
        return null;
      }
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** Starts watching; returns the function that stops. The timer never keeps the process alive. */
export function watchLoopStalls(thresholdMs: number, report: (stall: LoopStall) => void, tickMs = 2): () => void {
  const threadTimes = threadTimesReader();
  let last = performance.now();
  let lastTimes = threadTimes.read();
  const timer = setInterval(() => {
    const now = performance.now();
    const times = threadTimes.read();
    if (now - last > thresholdMs) {
      report({
        at: performance.timeOrigin + last,
        ms: now - last,
        cpuMs: times && lastTimes ? times.cpu - lastTimes.cpu : null,
        waitMs: times && lastTimes ? times.wait - lastTimes.wait : null,
      });
    }
    last = now;
    lastTimes = times;
  }, tickMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    threadTimes.close();
  };
}

const ms = (value: number | null) => value === null ? null : Math.round(value * 10) / 10;

/** One log line for a stall, in the request log's format (stderr: it is a warning). */
export function stallLine(format: LogFormat, stall: LoopStall): string {
  const time = new Date(stall.at).toISOString();
  if (format === "json") {
    return JSON.stringify({
      time,
      level: "warn",
      msg: "event loop stall",
      at_ms: ms(stall.at),
      stall_ms: ms(stall.ms),
      cpu_ms: ms(stall.cpuMs),
      wait_ms: ms(stall.waitMs),
    });
  }
  const split = stall.cpuMs === null || stall.waitMs === null
    ? ""
    : ` (main thread on a core ${ms(stall.cpuMs)} ms, waiting for a core ${ms(stall.waitMs)} ms)`;
  return `${time} event loop stall ${ms(stall.ms)} ms${split}`;
}
