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

  it("renews the lease of a long job while it runs (heartbeat); a dead server's job is taken over once its lease runs out", async () => {
    // Two servers on one shared database: each runner reaches the same tables through its own
    // connection; server A's can be cut (its process died).
    const server = () => {
      const link = { dead: false };
      const own: Db = {
        ...db,
        kind: "postgres",
        query: (sql, params) => (link.dead ? Promise.reject(new Error("gone")) : db.query(sql, params)),
      };
      return { db: own, link };
    };
    const a = server(), b = server();
    const runsOn: string[] = [];
    let release!: () => void;
    const long = new Promise<void>((r) => (release = r));
    let finished = false;
    const kind = (name: string) => ({
      kind: "long",
      leaseSeconds: 1,
      pending: async () => (finished ? [] : ["1"]),
      run: async () => {
        runsOn.push(name);
        if (name === "A") await long; // A holds it (3 s here: three leases), then dies holding it
        else finished = true;
      },
    });
    const runnerA = new JobRunner(a.db, { pollMs: 10 });
    runnerA.register(kind("A"));
    const runnerB = new JobRunner(b.db, { pollMs: 10 });
    runnerB.register(kind("B"));
    runnerA.start();
    for (let i = 0; i < 200 && runsOn.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    runnerB.start();
    await new Promise((r) => setTimeout(r, 3000));
    expect(runsOn).toEqual(["A"]); // B polled 3 s (three lease lengths) and never took it
    const [held] = await db.query<{ expires_at: string }>(
      "select expires_at from public.job_leases where kind = 'long'",
    );
    expect(Date.parse(held.expires_at)).toBeGreaterThan(Date.now()); // renewed, not expired
    // A dies holding it: no more heartbeats. B takes it over once the lease runs out (≤ 1 s + a poll).
    a.link.dead = true;
    for (let i = 0; i < 500 && !finished; i++) await new Promise((r) => setTimeout(r, 10));
    expect(runsOn).toEqual(["A", "B"]);
    release();
    await runnerB.stop();
    await runnerA.stop();
    await db.query("delete from public.job_leases");
  });
});
