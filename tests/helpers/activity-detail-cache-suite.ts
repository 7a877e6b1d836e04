import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../server/config.ts";
import { systemActor } from "../../server/actor.ts";
import { keptDetails } from "../../server/activities/detail-cache.ts";
import { createActivity } from "../../server/activities/commands.ts";
import { addGear, updateGear } from "../../server/gear/commands.ts";
import { nextId } from "../../server/ids.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "./server.ts";

/**
 * GET /v3/activities/:id keeps its JSON text for the detail statement's row it was built from
 * (server/activities/detail-cache.ts) and answers it again while the statement returns an equal
 * row. Every event that changes what the answer holds must show in the next GET — on the activity's
 * own stream (update, kudos, comment), and on others' (the gear's rename, its distance grown by
 * another activity, a privacy zone) — and the kept answer must be byte for byte the built one.
 * Run on PGlite (tests/api/activity-detail-cache.test.ts) and PostgreSQL (tests/postgres/…).
 */
const FILE = "fit/garmin-edge1000-cycling-short-3formats.fit";
const DEVICES = join(import.meta.dirname ?? ".", "../fixtures/devices");

/** The suite on a store: `open` gives the server's overrides (PostgreSQL: its database URL), `close` ends it. */
export function activityDetailCacheSuite(store: {
  open(): Promise<Partial<Config>>;
  close?(): Promise<void>;
}): void {
  let server: TestServer;
  let ada: TestAthlete;
  let bob: TestAthlete;
  let activityId: number;
  let bike: string;
  let noViewPrivate: string;

  const get = async (token: string) => {
    const res = await server.api("GET", `/v3/activities/${activityId}`, { token });
    expect(res.status, res.text).toBe(200);
    return res;
  };

  /** Two GETs: the second is the kept answer (the cache holds it), equal to the first byte for byte. */
  const getTwice = async (token: string) => {
    const first = await get(token);
    const kept = keptDetails(server.platform.db);
    const second = await get(token);
    expect(kept).toBeGreaterThan(0);
    expect(second.text).toBe(first.text);
    return second.body;
  };

  beforeAll(async () => {
    server = await startTestServer(await store.open());
    ada = await server.athlete({ firstname: "Ada" });
    bob = await server.athlete({ firstname: "Bob" });
    noViewPrivate = await server.token(ada.id, ada.applicationId, ["read", "write"]);
    activityId = await uploadUntilReady(server, ada.token, {
      bytes: new Uint8Array(readFileSync(join(DEVICES, FILE))),
      name: "ride.fit",
      dataType: "fit",
    });
    bike = await addGear(server.platform, { athleteId: ada.id, kind: "bike", name: "Steel", primary: false });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await store.close?.();
  });

  describe("GET /v3/activities/:id's kept answer", () => {
    it("is the answer the representation builds (as PUT answers it)", async () => {
      const put = await server.api("PUT", `/v3/activities/${activityId}`, {
        token: ada.token,
        form: { gear_id: bike },
      });
      expect(put.status, put.text).toBe(200);
      await getTwice(ada.token);
      expect((await get(ada.token)).text).toBe(put.text);
    });

    it("is kept per dialect: /api/v3 answers Strava's model, /v3 the spec's", async () => {
      const spec = await getTwice(ada.token);
      const strava = await server.api("GET", `/api/v3/activities/${activityId}`, { token: ada.token });
      expect(strava.status, strava.text).toBe(200);
      // The spec writes "" where Strava's model has null (server/activities/represent.ts, specStrings).
      expect(spec.description).toBe("");
      expect(strava.body.description).toBeNull();
      expect((await get(ada.token)).body.description).toBe("");
    });

    it("changes with the activity's update", async () => {
      expect((await getTwice(ada.token)).name).not.toBe("Renamed");
      const put = await server.api("PUT", `/v3/activities/${activityId}`, {
        token: ada.token,
        form: { name: "Renamed" },
      });
      expect(put.status, put.text).toBe(200);
      expect((await get(ada.token)).body.name).toBe("Renamed");
    });

    it("changes with a kudos", async () => {
      expect((await getTwice(ada.token)).kudos_count).toBe(0);
      const kudos = await server.api("POST", `/v3/activities/${activityId}/kudos`, { token: bob.token });
      expect(kudos.status, kudos.text).toBeLessThan(300);
      expect((await get(ada.token)).body.kudos_count).toBe(1);
    });

    it("changes with a comment", async () => {
      expect((await getTwice(ada.token)).comment_count).toBe(0);
      const comment = await server.api("POST", `/v3/activities/${activityId}/comments`, {
        token: bob.token,
        form: { text: "Nice" },
      });
      expect(comment.status, comment.text).toBe(201);
      expect((await get(ada.token)).body.comment_count).toBe(1);
    });

    it("changes with other streams' events: the gear renamed", async () => {
      expect((await getTwice(ada.token)).gear.name).toBe("Steel");
      await updateGear(server.platform, ada.id, bike, { name: "Titanium" }, systemActor("test", ada.id));
      expect((await get(ada.token)).body.gear.name).toBe("Titanium");
    });

    it("changes with other streams' events: the gear's distance grown by another activity", async () => {
      const before = (await getTwice(ada.token)).gear;
      const other = await nextId(server.platform.db, "activity");
      await createActivity(server.platform, {
        activityId: other,
        athleteId: ada.id,
        name: "Commute",
        type: "Ride",
        sportType: "Ride",
        startDate: "2026-01-02T08:00:00Z",
        startDateLocal: "2026-01-02T09:00:00Z",
        timezone: "(GMT+01:00) Europe/Paris",
        elapsedTime: 3600,
        distance: 20_000,
        description: null,
        visibility: "everyone",
        trainer: false,
        commute: true,
      }, systemActor("test", ada.id));
      const put = await server.api("PUT", `/v3/activities/${other}`, { token: ada.token, form: { gear_id: bike } });
      expect(put.status, put.text).toBe(200);
      expect((await get(ada.token)).body.gear.distance).toBeGreaterThan(before.distance);
    });

    it("changes with a privacy zone (for the owner's token without view_private only)", async () => {
      const exact = await getTwice(ada.token);
      const before = await getTwice(noViewPrivate);
      expect(before.map.polyline).toBe(exact.map.polyline);
      const points = (await server.api("GET", `/v3/activities/${activityId}/streams`, {
        token: ada.token,
        query: { keys: "latlng", key_by_type: true },
      })).body.latlng.data as [number, number][];
      const [lat, lng] = points[Math.floor(points.length / 2)];
      const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
        token: ada.token,
        form: { lat, lng, radius: 300 },
      });
      expect(zone.status, zone.text).toBe(201);
      expect((await get(noViewPrivate)).body.map.polyline).not.toBe(before.map.polyline);
      expect((await get(ada.token)).body.map.polyline).toBe(exact.map.polyline);
    });
  });
}
