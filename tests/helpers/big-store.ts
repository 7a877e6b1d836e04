import { readFileSync } from "node:fs";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { findEvent } from "../../events/index.ts";
import { receivedUpload } from "../../events/upload/received.ts";
import { systemActor } from "../../server/actor.ts";
import { recordActivity } from "../../server/activities/commands.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { getBlob, putBlob } from "../../server/blobs.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Platform } from "../../server/platform.ts";
import { receiveUpload, succeedUpload } from "../../server/uploads/commands.ts";
import { processUpload } from "../../server/uploads/job.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { deviceFile } from "./fixtures.ts";

/**
 * An embedded store of a given size made of realistic recordings, quickly (issue #43 item 5: backups
 * of a 10 GB data directory). One real ride (the Wahoo ELEMNT FIT of docs/operators.md's blob costs:
 * 716 kB original, 919 kB streams) goes through the upload pipeline; every further activity is that
 * recording again as the upload job records it — UploadReceived, ActivityRecorded, UploadSucceeded,
 * through the same commands — an hour earlier each time, with blobs of its own: the original with a
 * unique trailer, the streams document with unique trailing whitespace (still the same JSON). So
 * each activity stores ~1.6 MB of blobs as files beside the database, as 2,000 real recordings make
 * ~3 GB.
 */
export const TEMPLATE_FILE = "fit/wahoo-elemnt-cycling-power-hr-pauses.fit";

export interface BigStore {
  athleteId: number;
  /** A token with every scope (read, write, view_private) of an internal application. */
  token: string;
  activityIds: number[];
}

/** JSON whitespace (space, tab, LF, CR) spelling `n`: a streams document's unique trailer. */
function whitespace(n: number): string {
  const digits = [" ", "\t", "\n", "\r"];
  let out = "\n";
  do {
    out += digits[n % 4];
    n = Math.floor(n / 4);
  } while (n > 0);
  return out;
}

/** Builds `activities` activities into a new embedded store in `dataDir`; `onProgress(done)` as it goes. */
export async function buildBigStore(
  dataDir: string,
  activities: number,
  onProgress: (done: number) => void = () => {},
): Promise<BigStore> {
  const platform = await openPlatform(
    configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true, runJobs: false }),
  );
  try {
    return await fill(platform, activities, onProgress);
  } finally {
    await platform.close();
  }
}

async function fill(platform: Platform, activities: number, onProgress: (done: number) => void): Promise<BigStore> {
  const athleteId = await createAthlete(platform, {
    firstname: "Years",
    lastname: "Rider",
    email: "years@example.com",
    password: "password123",
  });
  const app = await createApplication(platform, {
    name: "Backup check",
    ownerId: athleteId,
    callbackDomain: "localhost",
    internal: true,
  });
  const token = await issueToken(platform, {
    athleteId,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  const actor = systemActor("big-store", athleteId);
  // The template: one real upload through the pipeline.
  const original = new Uint8Array(readFileSync(deviceFile(TEMPLATE_FILE)));
  const submitted = await submitUpload(platform, {
    athleteId,
    fileName: "ride.fit",
    bytes: original,
    dataType: "fit",
    activityType: null,
    name: null,
    description: null,
    trainer: false,
    commute: false,
    externalId: null,
  }, actor);
  await processUpload(platform, submitted.id);
  const received = (await receivedUpload(platform.store, submitted.id))!;
  const recorded = findEvent(
    await platform.store.readStream(activityStream(received.activityId)),
    activityRecorded.type,
  );
  if (!recorded) throw new Error("the template upload did not become an activity");
  const facts = recorded.data;
  const streams = new TextDecoder().decode((await getBlob(platform.db, facts.streamsSha256!))!);
  const activityIds = [received.activityId];
  onProgress(1);
  for (let i = 1; i < activities; i++) {
    const uploadId = await nextId(platform.db, "upload");
    const activityId = await nextId(platform.db, "activity");
    const unique = new Uint8Array(original.byteLength + 8);
    unique.set(original);
    new DataView(unique.buffer).setFloat64(original.byteLength, i);
    const originalSha256 = await putBlob(platform.db, unique, { file: true });
    const streamsSha256 = await putBlob(platform.db, new TextEncoder().encode(streams + whitespace(i)), { file: true });
    const contentSha256 = originalSha256;
    await receiveUpload(platform, {
      ...received,
      uploadId,
      activityId,
      fileName: `ride-${i}.fit`,
      originalSha256,
      contentSha256,
      externalId: `ride-${i}.fit`,
    }, actor);
    const shift = (iso: string) => new Date(Date.parse(iso) - i * 3600_000).toISOString().replace(/\.000Z$/, "Z");
    const startDate = shift(facts.startDate);
    await recordActivity(
      platform,
      {
        ...facts,
        activityId,
        athleteId,
        name: `Ride ${i}`,
        startDate,
        startDateLocal: shift(facts.startDateLocal),
        streamsSha256,
      },
      actor,
      `big-store:${i}:record`,
    );
    await succeedUpload(platform, {
      uploadId,
      athleteId,
      activityId,
      startDate,
      deviceName: facts.deviceName,
      contentSha256,
      notes: [],
    }, actor);
    activityIds.push(activityId);
    if (i % 50 === 0 || i === activities - 1) onProgress(i + 1);
  }
  return { athleteId, token, activityIds };
}
