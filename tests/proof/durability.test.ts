import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";

/**
 * What the kernel saw, in order (strace -f -yy): WAL writes, completed WAL syncs and HTTP
 * responses. strace serializes the syscalls of all threads; a call split by another thread is
 * printed "<unfinished ...>" and completed by "<... name resumed>".
 */
type Step = { kind: "wal-write" } | { kind: "wal-sync" } | { kind: "response"; status: number };

const WAL = /pg_wal\//;

function steps(trace: string): Step[] {
  const out: Step[] = [];
  const pending = new Map<string, string>(); // pid → the unfinished call's text
  for (const raw of trace.split("\n")) {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const [, pid, rest] = m;
    let call = rest;
    if (rest.endsWith("<unfinished ...>")) {
      pending.set(pid, rest);
      // Writes count from their start: the bytes are on their way to the page cache.
      if (/^p?writev?64?\(/.test(rest) && WAL.test(rest)) out.push({ kind: "wal-write" });
      continue;
    }
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(rest);
    if (resumed) {
      call = `${pending.get(pid) ?? resumed[1] + "("}${resumed[2]}`;
      pending.delete(pid);
      if (/^p?writev?64?\(/.test(call)) {
        const status = /"HTTP\/1\.1 (\d{3})/.exec(call);
        if (status && /TCP/.test(call)) out.push({ kind: "response", status: Number(status[1]) });
        continue;
      }
    } else if (/^p?writev?64?\(/.test(call) && WAL.test(call)) {
      out.push({ kind: "wal-write" });
      continue;
    }
    // strace aligns return values to a column: a resumed call ends ")          = 0".
    if (/^f(data)?sync\(/.test(call) && WAL.test(call) && /\)\s+= 0$/.test(call)) out.push({ kind: "wal-sync" });
    const status = /^(?:writev?|sendto|sendmsg)\(\d+<TCP[^>]*>.*"HTTP\/1\.1 (\d{3})/.exec(call);
    if (status) out.push({ kind: "response", status: Number(status[1]) });
  }
  return out;
}

/** Responses sent while WAL written since the last completed sync was not yet on disk. */
function unsyncedResponses(trace: Step[]): number {
  let unsynced = 0;
  let dirty = false;
  for (const step of trace) {
    if (step.kind === "wal-write") dirty = true;
    else if (step.kind === "wal-sync") dirty = false;
    else if (dirty) unsynced++;
  }
  return unsynced;
}

/**
 * A real excerpt (paths shortened): the request log's batch written by the main thread (31503)
 * while the WAL sync ran on a blocking thread (31507), so strace printed both split, the sync's
 * end as "<... fdatasync resumed>)          = 0". Then the 201.
 */
const SPLIT_SYNC = `31503 pwrite64(21</d/pg_wal/000000010000000000000001>, "\\30\\321"..., 8192, 9191424) = 8192
31503 write(1<UNIX-STREAM:[1151949->1151948]>, "2026-11-24T07:33:30.729Z PUT /v3/activit"..., 85 <unfinished ...>
31507 fdatasync(127</d/pg_wal/000000010000000000000001> <unfinished ...>
31503 <... write resumed>)              = 85
31507 <... fdatasync resumed>)          = 0
31507 write(4<anon_inode:[eventfd]>, "\\1\\0\\0\\0\\0\\0\\0\\0", 8) = 8
31503 sendto(104<TCP:[127.0.0.1:44963->127.0.0.1:58584]>, "HTTP/1.1 201 Created\\r\\ncontent-type: appl"..., 233, MSG_NOSIGNAL, NULL, 0) = 233`;

let server: DenoServer | undefined;
afterAll(async () => {
  const pid = server && /^(\d+)/.exec(server.output() && readFileSync(traceFileOf(server), "utf8"))?.[1];
  if (pid) process.kill(Number(pid), "SIGKILL");
  await server?.stop("SIGKILL");
});

function traceFileOf(s: DenoServer): string {
  return join(s.dataDir, "..", "strace.txt");
}

describe("durability: no 2xx for a write before its WAL is synced to disk (Deno under strace, PGlite on disk)", () => {
  it("reads strace's split calls: a resumed sync counts, a WAL write after the sync is caught, a failed sync is not one", () => {
    expect(steps(SPLIT_SYNC).map((s) => s.kind)).toEqual(["wal-write", "wal-sync", "response"]);
    expect(unsyncedResponses(steps(SPLIT_SYNC))).toBe(0);
    const lines = SPLIT_SYNC.split("\n");
    // The same with a WAL write between the sync and the response: caught.
    const late = [...lines.slice(0, 6), lines[0], lines[6]].join("\n");
    expect(unsyncedResponses(steps(late))).toBe(1);
    // A sync that failed is no sync.
    const failed = SPLIT_SYNC.replace(
      "<... fdatasync resumed>)          = 0",
      "<... fdatasync resumed>)          = -1 EIO (Input/output error)",
    );
    expect(unsyncedResponses(steps(failed))).toBe(1);
  });

  it("syncs the WAL between every append and its response, for every kind of write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fitness-durable-"));
    const traceFile = join(dir, "strace.txt");
    server = await startDenoServer({
      dataDir: join(dir, "data"),
      env: { RUN_JOBS: "0", RATE_LIMIT_SHORT: "100000000", RATE_LIMIT_LONG: "100000000" },
      wrapper: [
        "strace",
        "-f",
        "-yy",
        "-s",
        "40",
        "-e",
        "trace=fsync,fdatasync,write,pwrite64,writev,pwritev,sendto,sendmsg",
        "-o",
        traceFile,
      ],
      timeoutMs: 120_000,
    });
    const token = /Access token[^\n]*:\n\s+(\S+)/.exec(server.output())?.[1];
    expect(token).toBeTruthy();
    const call = api(server.url);
    const marker = readFileSync(traceFile, "utf8").length;

    // One write at a time, of several kinds: each response must follow a sync of the WAL it wrote.
    const statuses: number[] = [];
    const activity = await call("POST", "/v3/activities", {
      token,
      form: { name: "Durable", type: "Run", start_date_local: "2024-05-01T08:00:00Z", elapsed_time: 1800 },
    });
    statuses.push(activity.status);
    const id = activity.body.id;
    for (let i = 0; i < 5; i++) {
      statuses.push((await call("PUT", `/v3/activities/${id}`, { token, form: { name: `Durable ${i}` } })).status);
      statuses.push(
        (await call("POST", `/v3/activities/${id}/comments`, { token, form: { text: `comment ${i}` } })).status,
      );
    }
    statuses.push(
      (await call("POST", "/v3/clubs", { token, form: { name: "Durable Club", sport_type: "running" } })).status,
    );
    statuses.push((await call("POST", "/v3/athlete/heatmaps", { token, form: { activity_type_ids: "2" } })).status);
    await new Promise((r) => setTimeout(r, 500));
    const sequential = steps(readFileSync(traceFile, "utf8").slice(marker));

    // Concurrent writes: the group commit lets them share syncs.
    const before = readFileSync(traceFile, "utf8").length;
    const concurrent = await Promise.all(
      Array.from(
        { length: 32 },
        (_, i) => call("POST", `/v3/activities/${id}/comments`, { token, form: { text: `together ${i}` } }),
      ),
    );
    // The OAuth write last (it revokes the token).
    const deauthorized = await call("POST", "/oauth/deauthorize", { token });
    await new Promise((r) => setTimeout(r, 500));
    const trace = readFileSync(traceFile, "utf8");
    const rest = steps(trace.slice(before));
    // Stop the traced server itself (the first pid strace names); strace then exits with it.
    process.kill(Number(/^(\d+)/.exec(trace)![1]), "SIGKILL");
    await server.stop("SIGKILL");
    server = undefined;

    expect(statuses.every((s) => s >= 200 && s < 300)).toBe(true);
    expect(concurrent.every((r) => r.status === 201)).toBe(true);
    expect(deauthorized.status).toBe(200);

    // Sequential: every 2xx follows a completed WAL sync that came after the last WAL write.
    const responses = sequential.filter((s) => s.kind === "response");
    expect(responses).toHaveLength(statuses.length);
    const unsynced = unsyncedResponses(sequential);
    const syncedWrites = responses.length - unsynced;
    expect(unsynced).toBe(0);
    expect(sequential.filter((s) => s.kind === "wal-sync").length).toBeGreaterThanOrEqual(statuses.length);

    // The last response (deauthorize) also waited for its sync; the 32 concurrent ones shared syncs.
    const last = rest.map((s) => s.kind).lastIndexOf("response");
    const lastWrite = rest.map((s) => s.kind).lastIndexOf("wal-write", last);
    expect(rest.slice(lastWrite, last).some((s) => s.kind === "wal-sync")).toBe(true);
    const concurrentSyncs = rest.slice(
      0,
      rest.map((s) => s.kind).lastIndexOf("wal-write"),
    ).filter((s) => s.kind === "wal-sync").length;
    expect(concurrentSyncs).toBeGreaterThan(0);
    // (strace serializes the server's threads, so how many syncs concurrent requests share here varies: printed only.)
    const sequentialSyncs = sequential.filter((s) => s.kind === "wal-sync").length;
    console.log(
      `durability: ${syncedWrites}/${statuses.length} sequential write responses sent after their WAL sync (${unsynced} before); ` +
        `${sequentialSyncs} WAL syncs for them; ${concurrent.length} concurrent writes → ${concurrentSyncs} WAL syncs (group commit); deauthorize synced before its 200`,
    );
  }, 300_000);

  it("group commit: concurrent transactions on the durable database share WAL syncs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fitness-group-"));
    const db = await openPglite(join(dir, "data"));
    try {
      await db.exec("create table t (x int)");
      const before = db.walSyncs!.syncs;
      await db.query("insert into t values (0)");
      expect(db.walSyncs!.syncs).toBe(before + 1);
      const count = 100;
      const start = db.walSyncs!.syncs;
      await Promise.all(
        Array.from({ length: count }, (_, i) => db.transaction((tx) => tx.query("insert into t values ($1)", [i]))),
      );
      const syncs = db.walSyncs!.syncs - start;
      const [{ n }] = await db.query<{ n: number }>("select count(*)::int as n from t");
      expect(n).toBe(count + 1);
      expect(syncs).toBeGreaterThan(0);
      expect(syncs).toBeLessThan(count / 2);
      console.log(`durability: ${count} concurrent transactions → ${syncs} WAL syncs (one alone → 1)`);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("WAL syncs keep their file open, and close it once PostgreSQL deletes the segment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fitness-walfd-"));
    const data = join(dir, "data");
    /** This process's descriptors into the data directory's pg_wal: open ones and deleted ones. */
    const walDescriptors = () => {
      const targets = readdirSync("/proc/self/fd").map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return "";
        }
      }).filter((target) => target.startsWith(join(data, "pg_wal") + "/"));
      return { open: targets.length, deleted: targets.filter((t) => t.endsWith("(deleted)")).length };
    };
    const db = await openPglite(data);
    try {
      await db.exec("create table t (x int)");
      const syncsBefore = db.walSyncs!.syncs;
      for (let i = 0; i < 20; i++) await db.query("insert into t values ($1)", [i]);
      expect(db.walSyncs!.syncs - syncsBefore).toBe(20);
      // New segments, then checkpoints: PostgreSQL deletes the segments it no longer needs (no recycling).
      for (let round = 0; round < 4; round++) {
        await db.query("select pg_switch_wal()");
        await db.query("insert into t values ($1)", [100 + round]);
        await db.exec("checkpoint");
      }
      await db.query("insert into t values (1000)");
      const after = walDescriptors();
      expect(after.deleted).toBe(0);
      expect(after.open).toBeLessThanOrEqual(4 + 2); // ours (at most 4) and PostgreSQL's current segment's
      const [{ n }] = await db.query<{ n: number }>("select count(*)::int as n from t");
      expect(n).toBe(25);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
