import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { athleteRegistered, athleteStream } from "../../events/athlete/events.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { WebClient } from "../oauth/web-client.ts";
import { freshEmail, type RawResponse, requestFrom, signUp, withDataDir } from "./web-attacks.ts";

/**
 * The attacks: cracking stolen password hashes (they were scrypt N=2^14, under today's OWASP
 * minimum) and guessing passwords online (the old throttle counted per account only, so anyone
 * could lock an athlete out of their own account by failing five times).
 * OWASP Password Storage Cheat Sheet, scrypt: "a minimum CPU/memory cost parameter of (2^17), a
 * minimum block size of 8 (1024 bytes), and a parallelization parameter of 1".
 */
const OWASP = { N: 2 ** 17, r: 8, p: 1 };
const password = "correct horse battery";

let server: DenoServer;
let dataDir: string;
let oldEmail: string;

/** Checks a stored "scrypt$N$r$p$salt$hash" with node:crypto directly (not our code). */
function matches(stored: string, candidate: string): { N: number; r: number; p: number; ok: boolean } {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  expect(scheme).toBe("scrypt");
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const key = scryptSync(candidate, Buffer.from(salt, "hex"), hash.length / 2, { ...cost, maxmem: 256 * 1024 * 1024 });
  return { ...cost, ok: timingSafeEqual(key, Buffer.from(hash, "hex")) };
}

async function hashOf(email: string): Promise<string> {
  return withDataDir(dataDir, async (db) => {
    const [row] = await db.query<{ password_hash: string }>("select password_hash from athletes where email = $1", [
      email,
    ]);
    return row.password_hash;
  });
}

beforeAll(async () => {
  // An athlete registered by an older version: scrypt N=2^14, made here with node:crypto.
  dataDir = mkdtempSync(join(tmpdir(), "fitness-signin-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const id = await nextId(setup.db, "athlete");
  oldEmail = freshEmail("old-hash");
  const salt = randomBytes(16);
  const oldHash = [
    "scrypt",
    16384,
    8,
    1,
    salt.toString("hex"),
    scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 }).toString("hex"),
  ].join("$");
  await setup.store.append(athleteStream(id), 0, [athleteRegistered.create({
    athleteId: id,
    firstname: "Old",
    lastname: "Hash",
    email: oldEmail,
    passwordHash: oldHash,
    sex: null,
    premium: false,
    city: null,
    state: null,
    country: null,
    birthdate: null,
    weight: null,
  })], { metadata: { source: "test" } });
  await setup.close();
  server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** GET /login then POST /login from one client address (its own CSRF cookie and token). */
async function attempt(address: string, email: string, guess: string): Promise<RawResponse> {
  const page = await requestFrom(address, new URL("/login", server.url).href);
  const cookie = [page.headers["set-cookie"] ?? []].flat().map((c) => c.split(";")[0]).join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1];
  return requestFrom(address, new URL("/login", server.url).href, {
    cookie,
    form: { _csrf: csrf, email, password: guess },
  });
}

describe("password hashing and sign-in throttling (Deno server)", () => {
  it("hashes new passwords at the OWASP scrypt parameters and upgrades an older hash at the next sign-in", async () => {
    const newEmail = freshEmail("new-hash");
    expect((await signUp(new WebClient(server.url), newEmail, password)).status).toBe(303);
    // A wrong password for the old account changes nothing; the right one signs in and upgrades.
    expect((await attempt("127.0.0.1", oldEmail, "wrong password")).status).toBe(401);
    const signedIn = await attempt("127.0.0.1", oldEmail, password);
    expect(signedIn.status).toBe(303);
    await server.stop();

    const fresh = matches(await hashOf(newEmail), password);
    const upgraded = matches(await hashOf(oldEmail), password);
    const rehashEvents = await withDataDir(
      dataDir,
      async (db) =>
        (await db.query<{ n: number }>(
          "select count(*)::int as n from public.events where type = 'AthletePasswordRehashed'",
        ))[0].n,
    );
    for (const cost of [fresh, upgraded]) {
      expect(cost.ok).toBe(true);
      expect(cost.N).toBeGreaterThanOrEqual(OWASP.N);
      expect(cost.r).toBeGreaterThanOrEqual(OWASP.r);
      expect(cost.p).toBeGreaterThanOrEqual(OWASP.p);
    }
    expect(matches(await hashOf(oldEmail), "wrong password").ok).toBe(false);
    expect(Number(rehashEvents)).toBe(1);
    // The upgrade is an event: replaying the log rebuilds the same read models.
    const verify = await runCli(["verify"], { DATA_DIR: dataDir, QUIET: "1" });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    console.log(
      `password hashing: new hash scrypt N=${fresh.N} r=${fresh.r} p=${fresh.p}; old N=16384 hash upgraded at sign-in to N=${upgraded.N} r=${upgraded.r} p=${upgraded.p} ` +
        `(${rehashEvents} AthletePasswordRehashed event; cli verify exit ${verify.code})`,
    );
    server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
  }, 600_000);

  it("slows a guesser from one address without locking the owner, who signs in from another address", async () => {
    const victim = freshEmail("victim");
    expect((await signUp(new WebClient(server.url), victim, password)).status).toBe(303);
    const attacker = "127.0.0.1", owner = "127.0.0.2";

    // The guesser: wrong passwords as fast as the server answers, for 20 s and until a guess was
    // just checked (so a fresh wait has started).
    const statuses: number[] = [];
    let retryAfter = 0;
    const until = Date.now() + 20_000;
    while (Date.now() < until || statuses.at(-1) !== 401) {
      const res = await attempt(attacker, victim, `guess-${statuses.length}`);
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = Math.max(retryAfter, Number(res.headers["retry-after"]));
        await new Promise((r) => setTimeout(r, 200)); // a polite guesser: the machine is shared
      }
    }
    const checked = statuses.filter((s) => s === 401).length;
    const refused = statuses.filter((s) => s === 429).length;
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(refused).toBeGreaterThan(0);
    expect(retryAfter).toBeGreaterThan(0);

    // While the guesser waits, even the right password from its address is refused unchecked…
    const guesserRight = await attempt(attacker, victim, password);
    expect(guesserRight.status).toBe(429);
    // …and the owner, from another address, signs in at once.
    const ownerIn = await attempt(owner, victim, password);
    expect(ownerIn.status).toBe(303);
    expect(ownerIn.headers["set-cookie"]?.some((c) => c.startsWith("fp_session="))).toBe(true);
    console.log(
      `throttling: guesser from ${attacker} made ${statuses.length} attempts in ${
        ((Date.now() - until + 20_000) / 1000).toFixed(0)
      } s, ${checked} checked (401), ${refused} refused (429, Retry-After up to ${retryAfter} s); ` +
        `right password from the guesser's address: ${guesserRight.status}; owner from ${owner}: ${ownerIn.status}`,
    );
  }, 300_000);
});
