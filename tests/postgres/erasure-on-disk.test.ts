import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { type OwnPostgres, startOwnPostgres } from "../helpers/own-postgres.ts";
import { WebClient } from "../oauth/web-client.ts";
import { signUp } from "../proof/web-attacks.ts";

/**
 * Issue #41 item 3 on PostgreSQL: after an account deletion no file of the database cluster (table
 * files, WAL, statistics) and no `cli backup` taken after it holds the athlete's e-mail or text.
 * The cluster is the test's own (its files readable here; superuser; wal_recycle = off, as
 * docs/accounts.md asks of an operator who wants the WAL clean too); the server runs as `npm start`.
 */
let database: OwnPostgres;
let server: DenoServer | undefined;
let url = "";

beforeAll(async () => {
  database = await startOwnPostgres({ settings: { wal_recycle: "off" } });
  const admin = new pg.Client({ connectionString: database.url() });
  await admin.connect();
  await admin.query("create database fitness");
  await admin.end();
  url = database.url("fitness");
  server = await startDenoServer({ env: { DATABASE_URL: url, SEED_DEMO: "0" } });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await database?.destroy();
});

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return [];
    return st.isDirectory() ? listFiles(path) : [path];
  });
}

/** Files of the cluster whose bytes hold any of the needles. */
function filesHolding(dir: string, needles: string[]): string[] {
  const wanted = needles.map((n) => Buffer.from(n));
  return listFiles(dir).filter((file) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      return false; // removed meanwhile (a WAL segment, a temporary file)
    }
    return wanted.some((n) => bytes.includes(n));
  }).map((f) => relative(dir, f));
}

async function pageToken(client: WebClient): Promise<string> {
  const token = /<meta name="api-token" content="([0-9a-f]+)">/.exec((await client.get("/")).text)?.[1];
  if (!token) throw new Error("no page token");
  return token;
}

describe("erasure on disk, PostgreSQL", () => {
  it("leaves no deleted string in any file of the cluster nor in a backup taken after", async () => {
    const secret = `Zyxquor${Date.now()}`;
    const email = `${secret.toLowerCase()}@example.com`;
    const password = "first password 1";
    const headers = (token: string) => ({ authorization: `Bearer ${token}` });
    // Y, another athlete, with an activity; X comments on it and has an activity of their own.
    const y = new WebClient(server!.url);
    expect((await signUp(y, `other-${Date.now()}@example.com`, password)).status).toBe(303);
    const yToken = await pageToken(y);
    const ride = await fetch(`${server!.url}/v3/activities`, {
      method: "POST",
      headers: headers(yToken),
      body: new URLSearchParams({
        name: "Y's ride",
        type: "Ride",
        start_date_local: "2026-05-01T08:00:00Z",
        elapsed_time: "3600",
      }),
    });
    expect(ride.status).toBe(201);
    const yRide = (await ride.json()).id;
    const x = new WebClient(server!.url);
    expect((await signUp(x, email, password)).status).toBe(303);
    const xToken = await pageToken(x);
    for (
      const [path, body] of [
        ["/v3/activities", {
          name: `${secret} loop`,
          type: "Run",
          start_date_local: "2026-05-02T08:00:00Z",
          elapsed_time: "1800",
        }],
        [`/v3/activities/${yRide}/comments`, { text: `${secret} was here` }],
      ] as const
    ) {
      const res = await fetch(`${server!.url}${path}`, {
        method: "POST",
        headers: headers(xToken),
        body: new URLSearchParams(body),
      });
      expect(res.status, path).toBeLessThan(300);
    }
    // A checkpoint writes the rows into the table files too (else they sit in the WAL and shared buffers).
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("checkpoint");
    await admin.end();
    const needles = [secret, email];
    const before = filesHolding(database.dataDir, needles);
    expect(before.length).toBeGreaterThan(0); // the search finds them while they exist (the WAL at least)

    const page = await x.get("/settings/account");
    const deleted = await x.post("/settings/delete-account", { _csrf: WebClient.csrf(page.text), password });
    expect(deleted.status).toBe(303);

    const after = filesHolding(database.dataDir, needles);
    expect(after).toEqual([]);
    const backupFile = join(mkdtempSync(join(tmpdir(), "fitness-erased-pg-")), "after.tar.gz");
    const backedUp = await runCli(["backup", "--out", backupFile], { DATABASE_URL: url });
    expect(backedUp.code, backedUp.stderr).toBe(0);
    const bytes = gunzipSync(readFileSync(backupFile));
    expect(needles.filter((n) => bytes.includes(Buffer.from(n)))).toEqual([]);
    rmSync(backupFile, { force: true });
    expect(server!.output()).toMatch(/erasure of athlete \d+: \d+ tables rewritten, WAL checkpointed/);
    expect(server!.output()).not.toMatch(/refused \d+ statement/);
    // Y is intact.
    expect((await fetch(`${server!.url}/v3/activities/${yRide}`, { headers: headers(yToken) })).status).toBe(200);
    console.log(
      `erasure on disk (PostgreSQL): ${before.length} files of the cluster held the e-mail or text before the deletion (${
        before.join(", ")
      }), ${after.length} after; a backup taken after: 0; ${
        /erasure of athlete \d+: [^\n]*/.exec(server!.output())?.[0]
      }`,
    );
  }, 300_000);
});
