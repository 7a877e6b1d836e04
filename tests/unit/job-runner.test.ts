import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { JOB_SCHEMA, JobRunner } from "../../server/jobs/runner.ts";

let db: Db;
beforeAll(async () => {
  db = await openPglite();
  await db.exec(JOB_SCHEMA);
});
afterAll(() => db.close());

describe("the job runner", () => {
  it("retries a failing job with a growing back-off, then gives up and records it once", async () => {
    const runs: number[] = [];
    const gaveUp: string[] = [];
    let pending = true;
    const runner = new JobRunner(db, { pollMs: 10, retryBaseSeconds: 0.05 });
    runner.register({
      kind: "always-fails",
      pending: async () => (pending ? ["7"] : []),
      run: async () => {
        runs.push(performance.now());
        throw new Error("broken input");
      },
      maxAttempts: 4,
      giveUp: async (id, message) => {
        gaveUp.push(`${id}: ${message}`);
        pending = false;
      },
    });
    runner.start();
    for (let i = 0; i < 400 && gaveUp.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await runner.stop();
    expect(gaveUp).toEqual(["7: broken input"]);
    expect(runs.length).toBe(4);
    // Each wait is at least the back-off (0.05 s, 0.1 s, 0.2 s): never a tight loop.
    const waits = runs.slice(1).map((t, i) => t - runs[i]);
    expect(waits[0]).toBeGreaterThanOrEqual(45);
    expect(waits[2]).toBeGreaterThanOrEqual(190);
    expect(await db.query("select * from public.job_leases")).toEqual([]);
  });

  it("runs a job that succeeds once and releases its claim", async () => {
    let done = false;
    let count = 0;
    const runner = new JobRunner(db, { pollMs: 10 });
    runner.register({
      kind: "works",
      pending: async () => (done ? [] : ["1"]),
      run: async () => {
        count++;
        done = true;
      },
    });
    runner.start();
    for (let i = 0; i < 200 && !done; i++) await new Promise((r) => setTimeout(r, 10));
    await runner.stop();
    expect(count).toBe(1);
    expect(await db.query("select * from public.job_leases where kind = 'works'")).toEqual([]);
  });
});
