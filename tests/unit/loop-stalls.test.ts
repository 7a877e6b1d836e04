import process from "node:process";
import { describe, expect, it } from "vitest";
import { ConfigError, configFromEnv } from "../../server/config.ts";
import { type LoopStall, stallLine, watchLoopStalls } from "../../server/ops/loop-stalls.ts";

const linux = process.platform === "linux";
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Watches while `block` holds the event loop; the stalls reported. */
async function stallsDuring(block: () => void): Promise<LoopStall[]> {
  const stalls: LoopStall[] = [];
  const stop = watchLoopStalls(40, (s) => stalls.push(s));
  await pause(30);
  block();
  await pause(30);
  stop();
  return stalls;
}

describe("event-loop stalls (LOG_LOOP_STALLS_MS)", () => {
  it("reports a loop held by work on the main thread, as time on a core", async () => {
    const started = Date.now();
    const stalls = await stallsDuring(() => {
      const until = performance.now() + 150;
      while (performance.now() < until) { /* on a core */ }
    });
    const stall = stalls.find((s) => s.ms >= 150);
    expect(stall, JSON.stringify(stalls)).toBeDefined();
    expect(stall!.at).toBeGreaterThanOrEqual(started - 5);
    if (linux) {
      // The thread was never asleep: it was on a core, or waiting for one when a busy machine (a
      // loaded CI run) took the core away; it did run for part of it.
      expect(stall!.cpuMs! + stall!.waitMs!).toBeGreaterThanOrEqual(stall!.ms - 30);
      expect(stall!.cpuMs! + stall!.waitMs!).toBeLessThanOrEqual(stall!.ms + 5);
      expect(stall!.cpuMs!).toBeGreaterThan(20);
    }
  });

  it("tells a loop held by a sleeping call apart: neither on a core nor waiting for one (Linux; elsewhere no split)", async () => {
    const stalls = await stallsDuring(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150));
    const stall = stalls.find((s) => s.ms >= 150);
    expect(stall, JSON.stringify(stalls)).toBeDefined();
    if (!linux) {
      expect([stall!.cpuMs, stall!.waitMs]).toEqual([null, null]);
      return;
    }
    expect(stall!.cpuMs!).toBeLessThan(30);
    expect(stall!.ms - stall!.cpuMs! - stall!.waitMs!).toBeGreaterThan(100);
  });

  it("writes one line per stall in the request log's format", () => {
    const stall: LoopStall = { at: Date.UTC(2026, 10, 24, 12), ms: 67.34, cpuMs: 4.12, waitMs: 60.2 };
    expect(JSON.parse(stallLine("json", stall))).toEqual({
      time: "2026-11-24T12:00:00.000Z",
      level: "warn",
      msg: "event loop stall",
      at_ms: stall.at,
      stall_ms: 67.3,
      cpu_ms: 4.1,
      wait_ms: 60.2,
    });
    expect(stallLine("text", stall)).toBe(
      "2026-11-24T12:00:00.000Z event loop stall 67.3 ms (main thread on a core 4.1 ms, waiting for a core 60.2 ms)",
    );
    expect(stallLine("text", { ...stall, cpuMs: null, waitMs: null })).toBe(
      "2026-11-24T12:00:00.000Z event loop stall 67.3 ms",
    );
  });

  it("is off unless LOG_LOOP_STALLS_MS is set, and refuses a value that is not a number of ms", () => {
    const saved = process.env.LOG_LOOP_STALLS_MS;
    try {
      delete process.env.LOG_LOOP_STALLS_MS;
      expect(configFromEnv().loopStallMs).toBe(0);
      process.env.LOG_LOOP_STALLS_MS = "15";
      expect(configFromEnv().loopStallMs).toBe(15);
      process.env.LOG_LOOP_STALLS_MS = "fast";
      expect(() => configFromEnv()).toThrow(ConfigError);
    } finally {
      if (saved === undefined) delete process.env.LOG_LOOP_STALLS_MS;
      else process.env.LOG_LOOP_STALLS_MS = saved;
    }
  });
});
