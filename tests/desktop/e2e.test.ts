/**
 * The companion core against the real server (PGlite in a temp dir), over HTTP only: a temp folder
 * laid out like a Garmin volume appears while the companion runs; real device files are copied in.
 */
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Companion } from "../../desktop/core/companion.ts";
import { StaticToken } from "../../desktop/core/oauth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { EventLog } from "./helpers.ts";
import { DEVICES } from "../helpers/fixtures.ts";

const FIT = join(DEVICES, "fit");
const BROKEN = join(DEVICES, "broken");
const root = mkdtempSync(join(tmpdir(), "companion-e2e-"));
const dataDir = join(root, "server-data");
const media = join(root, "media");
const stateDir = join(root, "state");
const activityFolder = join(media, "GARMIN", "Garmin", "Activity");
let server: TestServer;
let port: number;
let token: string;

function companion(): Companion {
  return new Companion({
    server: server.url,
    tokens: new StaticToken(token),
    stateDir,
    volumeRoots: [media],
    volumeScanMs: 300,
    backoffBaseMs: 300,
    backoffMaxMs: 2000,
  });
}

async function activityIds(): Promise<number[]> {
  const res = await server.api("GET", "/v3/athlete/activities", { token, query: { per_page: 200 } });
  expect(res.status).toBe(200);
  return (res.body as { id: number }[]).map((a) => a.id).sort((a, b) => a - b);
}

beforeAll(async () => {
  mkdirSync(media, { recursive: true });
  server = await startTestServer({ dataDir });
  port = server.port;
  token = (await server.athlete()).token;
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("plug in a device, the activities appear — once", () => {
  const good = "garmin-edge500-cycling-hr-cad-pauses.fit";
  const slow = "wahoo-elemnt-cycling-power-hr-pauses.fit";
  const broken = "strava-android-app-truncated-datasize.fit";
  const copy = "2024-05-01-copy-of-edge500.fit";
  const fileActivity = new Map<string, string>();

  it("uploads each good file once, shows the duplicate and the broken file's error", async () => {
    const c = companion();
    const log = new EventLog(c);
    await c.start();
    try {
      // The volume is mounted while the companion runs.
      mkdirSync(activityFolder, { recursive: true });
      writeFileSync(
        join(media, "GARMIN", "Garmin", "GarminDevice.xml"),
        `<?xml version="1.0"?>
<Device xmlns="http://www.garmin.com/xmlschemas/GarminDevice/v2"><Model><Description>Edge 500</Description></Model><Id>3999000111</Id>
<MassStorageMode><DataType><Name>FIT_TYPE_4</Name><File><Location><Path>Garmin/Activity</Path><FileExtension>FIT</FileExtension></Location>
<TransferDirection>OutputFromUnit</TransferDirection></File></DataType></MassStorageMode></Device>`,
      );
      await log.until((e) => e.some((x) => x.event === "device_connected"), 20_000, "device_connected");
      expect(c.state().devices[0]).toMatchObject({ id: "garmin:3999000111", name: "Edge 500", folder: activityFolder });

      copyFileSync(join(FIT, good), join(activityFolder, good));
      copyFileSync(join(BROKEN, broken), join(activityFolder, broken));
      // Written slowly, in chunks, like a device flushing a recording.
      const bytes = readFileSync(join(FIT, slow));
      const chunk = Math.ceil(bytes.length / 4);
      for (let i = 0; i < bytes.length; i += chunk) {
        appendFileSync(join(activityFolder, slow), bytes.subarray(i, i + chunk));
        await new Promise((r) => setTimeout(r, 250));
      }
      await log.settled([good, slow], ["ready"], 90_000);
      await log.settled([broken], ["error", "ready", "duplicate"], 90_000);

      // Then the same recording again under another name.
      copyFileSync(join(FIT, good), join(activityFolder, copy));
      await log.settled([copy], ["duplicate", "ready", "error"], 30_000);

      const readyEvents = log.files((e) => e.event === "ready");
      for (const name of [good, slow]) {
        const ready = readyEvents.filter((e) => e.file === name);
        expect(ready).toHaveLength(1);
        expect(ready[0].path).toBe(join(activityFolder, name));
        expect(ready[0].activity_id).toMatch(/^\d+$/);
        fileActivity.set(name, ready[0].activity_id!);
        const activity = await server.api("GET", `/v3/activities/${ready[0].activity_id}`, { token });
        expect(activity.status).toBe(200);
      }
      expect(log.files((e) => e.file === slow && e.event === "uploading")).toHaveLength(1);
      expect(fileActivity.get(good)).not.toBe(fileActivity.get(slow));

      const brokenEvent = log.files((e) => e.file === broken && e.event === "error")[0];
      expect(brokenEvent?.message).toBeTruthy();
      expect(brokenEvent.will_retry).toBe(false);
      expect(c.state().files.find((f) => f.name === broken)).toMatchObject({ status: "error" });

      const dup = log.files((e) => e.file === copy && e.event === "duplicate")[0];
      expect(dup.existing_activity_id).toBe(fileActivity.get(good));
      expect(log.files((e) => e.file === copy && e.event === "uploading")).toHaveLength(0);

      expect(await activityIds()).toEqual([...fileActivity.values()].map(Number).sort((a, b) => a - b));
      // The device's files are untouched.
      expect(readFileSync(join(activityFolder, slow)).equals(bytes)).toBe(true);
    } finally {
      await c.stop();
    }
  });

  it("after a restart nothing is uploaded again", async () => {
    const before = await activityIds();
    const c = companion();
    const log = new EventLog(c);
    await c.start();
    try {
      await log.settled([good, slow, broken, copy], ["seen"], 30_000);
      expect(log.files((e) => e.event === "uploading")).toHaveLength(0);
      const seen = log.files((e) => e.event === "seen");
      expect(seen.find((e) => e.file === good)).toMatchObject({ status: "ready", activity_id: fileActivity.get(good) });
      expect(seen.find((e) => e.file === copy)).toMatchObject({ status: "duplicate" });
      expect(seen.find((e) => e.file === broken)?.status).toBe("error");
      expect(await activityIds()).toEqual(before);
    } finally {
      await c.stop();
    }
  });

  it(
    "the server stops in the middle of a queue, the device is unplugged, the server starts again: every file arrives once",
    async () => {
      const before = await activityIds();
      const more = [
        "garmin-edge810-cycling-power-vector.fit",
        "coros-pace2-cycling-misaligned-fields.fit",
        "zwift-virtual-cycling-power.fit",
      ];
      const c = companion();
      const log = new EventLog(c);
      await c.start();
      try {
        for (const name of more) copyFileSync(join(FIT, name), join(activityFolder, name));
        await log.settled(more, ["seen"], 30_000);
        await log.until((e) => e.some((x) => x.event === "uploading"), 30_000, "first upload");
        await server.close();
        await log.until(
          (e) => e.some((x) => x.event === "error" && "will_retry" in x && x.will_retry === true),
          30_000,
          "a retry during the outage",
        );
        expect(c.state().counts.pending).toBeGreaterThan(0);
        // Unplugged while files wait: the queue keeps its own copies.
        rmSync(join(media, "GARMIN"), { recursive: true, force: true });
        await log.until((e) => e.some((x) => x.event === "device_removed"), 20_000, "device_removed");
        server = await startTestServer({ dataDir, port });
        await log.settled(more, ["ready"], 100_000);
        const ids = more.map((name) => log.files((e) => e.file === name && e.event === "ready")[0].activity_id!);
        expect(new Set(ids).size).toBe(3);
        expect(await activityIds()).toEqual([...before, ...ids.map(Number)].sort((a, b) => a - b));
        for (const name of more) expect(log.files((e) => e.file === name && e.event === "ready")).toHaveLength(1);
      } finally {
        await c.stop();
      }
    },
    150_000,
  );
});
