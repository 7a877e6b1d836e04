import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { WebClient } from "../oauth/web-client.ts";
import { freshEmail, signInWith, signUp, withDataDir } from "./web-attacks.ts";

/**
 * The attack: cookieless GET /login, many times. Before, every anonymous visitor got a server-side
 * session in a global LRU of 50,000, so a flood evicted every signed-in athlete (and a restart
 * signed everyone out). Now anonymous visitors leave no server-side state, sessions are bounded
 * per athlete (20 newest), stored hashed in the database and survive a restart; sign-out deletes.
 */
// 5,000 by default (the machine is shared); SESSION_FLOOD=50000 runs the full flood of the report.
const FLOOD = Number(process.env.SESSION_FLOOD ?? 5_000);
const CONCURRENCY = 32;
const password = "correct horse battery";

let server: DenoServer | undefined;
afterAll(async () => {
  await server?.stop();
});

async function signedInAs(client: WebClient): Promise<string | null> {
  const res = await client.get("/settings/apps");
  if (res.status !== 200) return null;
  // The header's sign-out button names who is signed in: "Sign out<span class="who"> (Name)</span>".
  return /Sign out(?:<span[^>]*>)?\s*\(([^)]*)\)/.exec(res.text)?.[1] ?? null;
}

async function sessionRows(dataDir: string): Promise<{ all: number; byAthlete: Record<string, number> }> {
  return withDataDir(dataDir, async (db) => {
    const rows = await db.query<{ athlete_id: string; n: number }>(
      "select athlete_id::text, count(*)::int as n from public.web_sessions group by athlete_id",
    );
    const byAthlete = Object.fromEntries(rows.map((r) => [r.athlete_id, Number(r.n)]));
    return { all: rows.reduce((sum, r) => sum + Number(r.n), 0), byAthlete };
  });
}

describe("anonymous visitors cannot evict signed-in athletes (Deno server, PGlite on disk)", () => {
  it(
    `${FLOOD} cookieless GET /login leave no session state; the athlete's session survives them and a restart; sign-out deletes it`,
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "fitness-sessions-"));
      server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
      let athlete = new WebClient(server.url);
      expect((await signUp(athlete, freshEmail("session"), password)).status).toBe(303);
      expect(await signedInAs(athlete)).toBe("Web Proof");

      // The flood: no cookies, many requests, a few at a time.
      let sent = 0, ok = 0, sessionCookies = 0;
      const started = performance.now();
      const url = new URL("/login", server.url);
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (sent < FLOOD) {
          sent++;
          const res = await fetch(url, { headers: { accept: "text/html" } });
          await res.arrayBuffer();
          if (res.status === 200) ok++;
          if (res.headers.getSetCookie().some((c) => c.startsWith("fp_session="))) sessionCookies++;
        }
      }));
      const seconds = (performance.now() - started) / 1000;
      expect(ok).toBe(FLOOD);
      expect(sessionCookies).toBe(0);
      expect(await signedInAs(athlete), "signed in after the flood").toBe("Web Proof");

      // Restart on the same data dir: the session is still there; the rows are the athlete's only.
      await server.stop();
      const afterFlood = await sessionRows(dataDir);
      expect(afterFlood.all).toBe(1);
      server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
      const before = athlete.cookies;
      athlete = new WebClient(server.url);
      for (const [k, v] of before) athlete.cookies.set(k, v);
      expect(await signedInAs(athlete), "signed in after a restart").toBe("Web Proof");

      // Sign-out deletes the session: the old cookie, replayed, no longer signs anyone in.
      const stolen = athlete.cookies.get("fp_session")!;
      const page = await athlete.get("/settings/apps");
      expect((await athlete.post("/logout", { _csrf: WebClient.csrf(page.text) })).status).toBe(303);
      const replay = new WebClient(server.url);
      replay.cookies.set("fp_session", stolen);
      expect(await signedInAs(replay), "old cookie after sign-out").toBeNull();
      await server.stop();
      const afterSignOut = await sessionRows(dataDir);
      expect(afterSignOut.all).toBe(0);
      server = undefined;

      console.log(
        `sessions: ${FLOOD} cookieless GET /login in ${seconds.toFixed(1)} s (${Math.round(FLOOD / seconds)}/s); ` +
          `fp_session cookies set ${sessionCookies}; web_sessions rows after the flood ${afterFlood.all} (the athlete's), anonymous 0; ` +
          `athlete signed in after the flood and after a restart; rows after sign-out ${afterSignOut.all}`,
      );
    },
    900_000,
  );

  it("keeps at most the 20 newest sessions per athlete, without touching other athletes' sessions", async () => {
    server = await startDenoServer({ env: { SEED_DEMO: "0" } });
    const bystander = new WebClient(server.url);
    expect((await signUp(bystander, freshEmail("bystander"), password)).status).toBe(303);
    const email = freshEmail("many");
    const clients = [new WebClient(server.url)];
    expect((await signUp(clients[0], email, password)).status).toBe(303);
    const SIGN_INS = 22;
    for (let i = 1; i < SIGN_INS; i++) {
      const client = new WebClient(server.url);
      expect((await signInWith(client, email, password)).status).toBe(303);
      clients.push(client);
    }
    const alive = [];
    for (const client of clients) alive.push(await signedInAs(client) !== null);
    const kept = alive.filter(Boolean).length;
    // The oldest ones are the ones gone; the newest 20 work.
    expect(alive).toEqual(clients.map((_, i) => i >= SIGN_INS - 20));
    expect(await signedInAs(bystander)).toBe("Web Proof");
    await server.stop();
    const rows = await sessionRows(server.dataDir);
    server = undefined;
    expect(Object.values(rows.byAthlete).sort((a, b) => a - b)).toEqual([1, 20]);
    console.log(
      `sessions per athlete: ${SIGN_INS} sign-ins → ${kept} working sessions, rows ${
        JSON.stringify(Object.values(rows.byAthlete))
      }; bystander still signed in`,
    );
  }, 600_000);
});
