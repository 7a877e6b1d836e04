// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { followStream } from "../../events/athlete/events.ts";
import { handleCommand } from "../../events/decider.ts";
import { followDecider } from "../../events/follow/decide.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { createApp } from "../../server/app.ts";
import { configFromEnv } from "../../server/config.ts";
import { jobKinds } from "../../server/job-kinds.ts";
import { type Platform } from "../../server/platform.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { DEVICES } from "../helpers/fixtures.ts";

/**
 * A log made by driving the API: several athletes upload real device files (streams, laps,
 * segment efforts), create segments from their rides, create and join clubs, star segments, post
 * manual activities, edit and delete them, give kudos, comment and delete comments, follow and
 * unfollow. Requests go through the whole Hono app (`app.request`: routing, auth, validation,
 * deciders, inline projections, durable PGlite commits) in-process, without a TCP port (the port
 * adds nothing to the log and would make 100,000 events take several times longer to reach).
 * Follows have no HTTP route in the v3 API (the CLI's `follow` is the product's way): they go
 * through the same handleCommand as `cli follow`.
 *
 * The log is generated once into a cache directory keyed by VERSION and the event target (a
 * PGlite data directory, copied for each run so a run never changes the cache).
 */
export const API_LOG_VERSION = "api-log-v2";

/** Fixture files with GPS tracks (uploads that give streams, polylines and segment efforts). */
const UPLOAD_FILES = [
  "fit/garmin-edge1000-cycling-power-hr.fit",
  "fit/garmin-edge500-cycling-hr-cad-pauses.fit",
  "fit/garmin-edge810-cycling-power-vector.fit",
  "fit/wahoo-elemnt-cycling-power-hr-pauses.fit",
  "fit/stryd-running-power-devfields.fit",
  "fit/coros-pace2-cycling-misaligned-fields.fit",
  "fit/garmin-edge1000-cycling-short-3formats.fit",
  "fit/zwift-virtual-cycling-power.fit",
];

const ATHLETES = 120;
/** Athletes who upload device files: the first SEEDERS before segments exist, the rest after. */
const SEEDERS = 3;
const UPLOADERS = 40;
const CONCURRENCY = 12;

/** A small deterministic PRNG (mulberry32), so every cache holds the same kind of log. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Driver {
  platform: Platform;
  app: Hono;
  call(
    method: string,
    path: string,
    token: string,
    body?: Record<string, string> | FormData,
  ): Promise<{ status: number; json: any }>;
}

async function openDriver(dataDir: string, databaseUrl?: string): Promise<Driver> {
  const platform = await openPlatform(configFromEnv({
    dataDir,
    databaseUrl,
    quiet: true,
    runJobs: true,
    seedDemo: false,
    port: 0,
  }));
  platform.config.rateLimitShort = 1e9;
  platform.config.rateLimitLong = 1e9;
  platform.config.passwordCost = "test";
  for (const make of jobKinds) platform.jobs.register(make(platform));
  const { app } = createApp(platform);
  platform.jobs.start();
  return {
    platform,
    app,
    async call(method, path, token, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      let payload: BodyInit | undefined;
      if (body instanceof FormData) payload = body;
      else if (body) {
        headers["content-type"] = "application/json";
        payload = JSON.stringify(body);
      }
      const res = await app.request(path, { method, headers, body: payload });
      const text = await res.text();
      if (res.status >= 500) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return { status: res.status, json: text ? JSON.parse(text) : {} };
    },
  };
}

async function head(platform: Platform): Promise<number> {
  return Number(await platform.store.headPosition());
}

async function uploadAll(d: Driver, tokens: string[], log: (s: string) => void): Promise<number[]> {
  const ids: { token: string; id: number }[] = [];
  for (const token of tokens) {
    for (const file of UPLOAD_FILES) {
      const form = new FormData();
      form.set("file", new Blob([readFileSync(join(DEVICES, file))]), file.split("/")[1]);
      form.set("data_type", "fit");
      form.set("external_id", `${file}-${token.slice(0, 8)}`);
      const res = await d.call("POST", "/v3/uploads", token, form);
      if (res.status === 201) ids.push({ token, id: res.json.id });
    }
  }
  const activities: number[] = [];
  let pending = ids;
  for (let round = 0; pending.length && round < 1200; round++) {
    await new Promise((r) => setTimeout(r, 250));
    const next: typeof pending = [];
    for (const u of pending) {
      const s = (await d.call("GET", `/v3/uploads/${u.id}`, u.token)).json;
      if (s.status === UPLOAD_STATUS.ready) activities.push(s.activity_id);
      else if (s.status === UPLOAD_STATUS.processing) next.push(u);
    }
    pending = next;
  }
  log(`${activities.length} of ${ids.length} uploads ready`);
  return activities;
}

/**
 * Builds the log into `dataDir` (fresh), or into the PostgreSQL database at `databaseUrl`, until it
 * holds at least `target` events.
 */
export async function buildApiLog(
  dataDir: string,
  target: number,
  log: (s: string) => void,
  databaseUrl?: string,
): Promise<void> {
  const d = await openDriver(dataDir, databaseUrl);
  const { platform } = d;
  try {
    const random = prng(18);
    const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
    const ownerId = await createAthlete(platform, {
      firstname: "Log",
      lastname: "Owner",
      email: "log-owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Log",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
    });
    const athletes: { id: number; token: string }[] = [];
    for (let i = 0; i < ATHLETES; i++) {
      const id = await createAthlete(platform, {
        firstname: `Rider${i}`,
        lastname: "Log",
        email: `log-${i}@example.com`,
        password: "password123",
        sex: i % 2 ? "M" : "F",
        birthdate: `${1960 + (i % 40)}-05-01`,
        weight: 55 + (i % 40),
      });
      athletes.push({
        id,
        token: await issueToken(platform, {
          athleteId: id,
          applicationId: app.client_id,
          permissions: ["read", "write", "view_private"],
        }),
      });
    }
    log(`registered ${ATHLETES} athletes`);
    // Seeders upload first; segments are cut from their rides so later uploads match them.
    const seeded = await uploadAll(d, athletes.slice(0, SEEDERS).map((a) => a.token), log);
    const segments: number[] = [];
    for (const activityId of seeded) {
      const detail = await d.call("GET", `/v3/activities/${activityId}`, athletes[0].token);
      const owner = athletes.find((a) => a.id === detail.json.athlete?.id) ?? athletes[0];
      const streams = await d.call("GET", `/v3/activities/${activityId}/streams/latlng?key_by_type=true`, owner.token);
      const points = streams.json?.latlng?.data?.length ?? 0;
      if (points < 200) continue;
      for (const [a, b] of [[0.1, 0.3], [0.4, 0.55], [0.6, 0.9]]) {
        const res = await d.call("POST", "/v3/segments", owner.token, {
          name: `Segment ${segments.length + 1}`,
          activity_id: String(activityId),
          start_index: String(Math.floor(points * a)),
          end_index: String(Math.floor(points * b)),
        });
        if (res.status === 201) segments.push(res.json.id);
      }
    }
    log(`created ${segments.length} segments`);
    const uploaded = [...seeded, ...await uploadAll(d, athletes.slice(SEEDERS, UPLOADERS).map((a) => a.token), log)];
    log(`uploads done at ${await head(platform)} events`);
    const clubs: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await d.call("POST", "/v3/clubs", athletes[i * 7].token, {
        name: `Club ${i}`,
        sport_type: "cycling",
        city: "Lyon",
      });
      if (res.status === 201) clubs.push(res.json.id);
    }
    // Activities by owner, for kudos/comments/edits/deletes.
    const activities: { id: number; owner: number }[] = [];
    for (const id of uploaded) {
      const detail = await d.call("GET", `/v3/activities/${id}`, athletes[0].token);
      if (detail.status === 200) {
        activities.push({
          id,
          owner: athletes.findIndex((a) => a.id === detail.json.athlete.id),
        });
      }
    }
    const comments: { activity: number; id: number; by: number }[] = [];
    let manual = 0;
    let nextUpload = 0;
    const lateUploads: { token: string; id: number }[] = [];
    const counts: Record<string, number> = {};
    const action = async () => {
      const who = Math.floor(random() * athletes.length);
      const me = athletes[who];
      const r = random();
      let kind: string;
      if (r < 0.006 && nextUpload < (ATHLETES - UPLOADERS) * UPLOAD_FILES.length) {
        // Uploads keep arriving during the day (processed by the job runner meanwhile).
        kind = "upload";
        const n = nextUpload++;
        const athlete = athletes[UPLOADERS + Math.floor(n / UPLOAD_FILES.length)];
        const file = UPLOAD_FILES[n % UPLOAD_FILES.length];
        const form = new FormData();
        form.set("file", new Blob([readFileSync(join(DEVICES, file))]), file.split("/")[1]);
        form.set("data_type", "fit");
        form.set("external_id", `late-${n}`);
        const res = await d.call("POST", "/v3/uploads", athlete.token, form);
        if (res.status === 201) lateUploads.push({ token: athlete.token, id: res.json.id });
      } else if (r < 0.24 && activities.length) {
        kind = "kudos";
        const a = pick(activities);
        await d.call("POST", `/v3/activities/${a.id}/kudos`, me.token);
      } else if (r < 0.42 && activities.length) {
        kind = "comment";
        const a = pick(activities);
        const res = await d.call("POST", `/v3/activities/${a.id}/comments`, me.token, { text: `Nice one #${manual}` });
        if (res.status < 300) comments.push({ activity: a.id, id: res.json.id, by: who });
      } else if (r < 0.46 && comments.length) {
        kind = "comment delete";
        const c = comments.splice(Math.floor(random() * comments.length), 1)[0];
        await d.call("DELETE", `/v3/activities/${c.activity}/comments/${c.id}`, athletes[c.by].token);
      } else if (r < 0.56 && segments.length) {
        kind = "star";
        await d.call("PUT", `/v3/segments/${pick(segments)}/starred`, me.token, { starred: String(random() < 0.7) });
      } else if (r < 0.64 && clubs.length) {
        kind = "club";
        await d.call("POST", `/v3/clubs/${pick(clubs)}/${random() < 0.75 ? "join" : "leave"}`, me.token);
      } else if (r < 0.74) {
        kind = "manual";
        const res = await d.call("POST", "/v3/activities", me.token, {
          name: `Manual ${manual++}`,
          type: random() < 0.5 ? "Ride" : "Run",
          start_date_local: new Date(Date.UTC(2024, 0, 1) + manual * 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          elapsed_time: String(1800 + Math.floor(random() * 7200)),
          distance: String(Math.floor(random() * 80_000)),
        });
        if (res.status < 300) activities.push({ id: res.json.id, owner: who });
      } else if (r < 0.84 && activities.length) {
        kind = "edit";
        const a = pick(activities);
        await d.call("PUT", `/v3/activities/${a.id}`, athletes[a.owner].token, {
          name: `Edited ${manual}`,
          description: "after the ride",
        });
      } else if (r < 0.87 && activities.length > 50) {
        kind = "delete";
        const i = Math.floor(random() * activities.length);
        const a = activities[i];
        // Keep the uploaded rides (their efforts feed the leaderboards): delete manual ones mostly.
        if (i >= uploaded.length || random() < 0.1) {
          activities.splice(i, 1);
          await d.call("DELETE", `/v3/activities/${a.id}`, athletes[a.owner].token);
        }
      } else {
        kind = "follow";
        const target = pick(athletes).id;
        if (target !== me.id) {
          await handleCommand(platform.store, followStream(me.id), followDecider, {
            type: random() < 0.75 ? "follow" : "unfollow",
            athleteId: me.id,
            targetId: target,
          }, { metadata: { athleteId: me.id, source: "cli" } });
        }
      }
      counts[kind] = (counts[kind] ?? 0) + 1;
    };
    let last = Date.now();
    for (;;) {
      const at = await head(platform);
      if (at >= target) break;
      if (Date.now() - last > 10_000) {
        log(`${at} events`);
        last = Date.now();
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, () => action()));
    }
    // Let the late uploads finish processing (their events are part of the log).
    for (let round = 0; round < 2400; round++) {
      let pending = 0;
      for (const u of lateUploads) {
        if ((await d.call("GET", `/v3/uploads/${u.id}`, u.token)).json.status === UPLOAD_STATUS.processing) pending++;
      }
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    log(`requests by kind: ${JSON.stringify(counts)}; ${await head(platform)} events`);
  } finally {
    await platform.close();
  }
}

/**
 * A copy of the cached API-driven log of at least `target` events, generating it first when the
 * cache does not hold it. remove() deletes the copy (never the cache).
 */
export async function apiLogCopy(
  target: number,
  log: (s: string) => void,
): Promise<{ dataDir: string; remove(): void }> {
  const cache = join(tmpdir(), `fitness-bench-${API_LOG_VERSION}-${target}`);
  if (!existsSync(join(cache, "complete"))) {
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    log(`generating an API-driven log of ≥ ${target} events into ${cache} (once per version)…`);
    const started = performance.now();
    await buildApiLog(join(cache, "data"), target, log);
    writeFileSync(join(cache, "complete"), `${API_LOG_VERSION}\n`);
    log(`generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } else log(`using the cached log in ${cache}`);
  const dir = mkdtempSync(join(tmpdir(), "fitness-replay-"));
  cpSync(join(cache, "data"), join(dir, "data"), { recursive: true });
  return { dataDir: join(dir, "data"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
