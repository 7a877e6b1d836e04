import type { z } from "zod";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { catalogued, findEvent } from "../../events/index.ts";
import {
  activityTypeAndPrivacy,
  uploadedActivityIds as uploadedActivities,
} from "../../projections/activities/queries.ts";
import { activityReprocessed, reprocessedFacts } from "../../events/activity/reprocessed.ts";
import type { EventData } from "../../events/catalogue.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import { toJson } from "../../shared/json.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { getBlob, putBlob } from "../blobs.ts";
import { systemActor } from "../actor.ts";
import { reprocess } from "../activities/commands.ts";
import type { Platform } from "../platform.ts";
import { effortIdFor, matchActivity } from "../segments/efforts.ts";
import { deriveContextOf, deriveFile } from "../uploads/derive-upload.ts";
import { keepPolyline } from "../uploads/polyline-blob.ts";
import { receivedUpload } from "../../events/upload/received.ts";
import {
  activityCropped,
  activityCropUndone,
  activitySplitFrom,
  type RecordingWindow,
} from "../../events/activity/cropped.ts";
import { windowMs } from "../crop/history.ts";

type Facts = z.infer<typeof reprocessedFacts>;
type Recorded = EventData<typeof activityRecorded>;
type Matched = EventData<typeof segmentEffortsMatched>;

export type ReprocessOutcome =
  | { activityId: number; outcome: "reprocessed"; changed: string[] }
  | { activityId: number; outcome: "unchanged" }
  | { activityId: number; outcome: "skipped"; reason: string };

const FACT_KEYS: (keyof Facts)[] = [
  "distance",
  "movingTime",
  "elapsedTime",
  "totalElevationGain",
  "elevHigh",
  "elevLow",
  "startLatlng",
  "endLatlng",
  "averageSpeed",
  "maxSpeed",
  "averageCadence",
  "averageTemp",
  "averageWatts",
  "maxWatts",
  "weightedAverageWatts",
  "kilojoules",
  "deviceWatts",
  "hasHeartrate",
  "averageHeartrate",
  "maxHeartrate",
  "calories",
  "sufferScore",
  "deviceName",
  "polyline",
  "polylineSha256",
  "summaryPolyline",
  "streamsSha256",
  "laps",
  "splitsMetric",
  "splitsStandard",
  "bestEfforts",
  "powerCurve",
];

/** JSON with object keys sorted (jsonb keeps keys in an order of its own). */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return toJson(sort(value));
}

function pick(source: Facts | Recorded | EventData<typeof activityCropped>["facts"]): Facts {
  return Object.fromEntries(FACT_KEYS.map((k) => [k, source[k]])) as Facts;
}

/** The activity as it stands now: its recording, later re-derivations and the efforts matched last. */
async function currentState(platform: Platform, activityId: number) {
  const events = await platform.store.readStream(activityStream(activityId));
  const recorded = findEvent(events, activityRecorded.type)?.data;
  if (!recorded) return undefined;
  let facts = pick(recorded);
  let efforts: Matched | null = null;
  // A crop or split keeps a window of the file: it is derived again over that window only.
  let window: RecordingWindow | null = null;
  for (const stored of events) {
    const e = catalogued(stored);
    if (e.type === activityReprocessed.type) facts = e.data.facts;
    if (e.type === activityCropped.type || e.type === activityCropUndone.type) {
      facts = pick(e.data.facts);
      window = e.data.window;
    }
    if (e.type === activitySplitFrom.type) window = e.data.window;
    if (e.type === segmentEffortsMatched.type || e.type === segmentEffortsRematched.type) efforts = e.data;
  }
  return { recorded, facts, efforts, window };
}

/**
 * Efforts found again keep the id, ranks and achievements they got at upload time (matched by
 * segment and order of traversal); efforts found for the first time carry no ranks or achievements.
 */
function keepUploadTimeAwards(fresh: Matched, before: Matched | null, activityId: number): Matched {
  const earlier = new Map<string, Matched["efforts"][number]>();
  const seen = new Map<number, number>();
  for (const e of before?.efforts ?? []) {
    const k = (seen.get(e.segmentId) ?? 0) + 1;
    seen.set(e.segmentId, k);
    earlier.set(`${e.segmentId}:${k}`, e);
  }
  const used = new Set((before?.efforts ?? []).map((e) => e.effortId));
  let next = (before?.efforts.length ?? 0) + 512;
  const again = new Map<number, number>();
  const efforts = fresh.efforts.map((e) => {
    const k = (again.get(e.segmentId) ?? 0) + 1;
    again.set(e.segmentId, k);
    const old = earlier.get(`${e.segmentId}:${k}`);
    if (old) {
      return {
        ...e,
        effortId: old.effortId,
        komRank: old.komRank,
        prRank: old.prRank,
        achievements: old.achievements,
        hidden: old.hidden,
      };
    }
    let effortId = effortIdFor(activityId, next++);
    while (used.has(effortId)) effortId = effortIdFor(activityId, next++);
    used.add(effortId);
    return { ...e, effortId, komRank: null, prRank: null, achievements: [] };
  });
  return {
    ...fresh,
    efforts,
    prCount: efforts.filter((e) => e.prRank === 1).length,
    achievementCount: efforts.reduce((n, e) => n + e.achievements.length, 0),
  };
}

/**
 * Re-derives an uploaded activity's measured facts and segment efforts from its stored original file
 * with today's algorithms, appending ActivityReprocessed and SegmentEffortsRematched when they differ
 * (nothing when they are the same). Awards of upload time are kept: best-effort PR ranks by distance
 * name, segment achievements by segment.
 */
export async function reprocessActivity(platform: Platform, activityId: number): Promise<ReprocessOutcome> {
  const current = await currentState(platform, activityId);
  if (!current) return { activityId, outcome: "skipped", reason: "not an uploaded activity (manual or unknown)" };
  const { recorded } = current;
  if (recorded.uploadId === null) return { activityId, outcome: "skipped", reason: "no upload" };
  const received = await receivedUpload(platform.store, recorded.uploadId);
  if (!received) return { activityId, outcome: "skipped", reason: "upload not found" };
  const original = await getBlob(platform.db, received.originalSha256);
  if (!original) return { activityId, outcome: "skipped", reason: "the original file is no longer stored" };
  const now = await activityTypeAndPrivacy(platform.db, activityId);
  if (!now) return { activityId, outcome: "skipped", reason: "the activity was deleted" };
  const { derived } = await deriveFile(
    original,
    received,
    await deriveContextOf(platform.db, received),
    platform.config.maxUploadBytes,
    undefined,
    undefined,
    undefined,
    windowMs(current.window),
  );
  const streamsSha256 = await putBlob(platform.db, new TextEncoder().encode(JSON.stringify(derived.streams)));
  const ranks = new Map(current.facts.bestEfforts.map((b) => [b.name, b.prRank]));
  // Through the event's schema first, so the comparison sees exactly what would be stored.
  // A long polyline is kept as a blob, as at upload (same text, same hash: unchanged).
  const polyline = await keepPolyline(platform.db, derived.facts.polyline);
  const fresh = reprocessedFacts.parse(pick({ ...derived.facts, ...polyline, streamsSha256 } as unknown as Facts));
  fresh.bestEfforts = fresh.bestEfforts.map((b) => ({ ...b, prRank: ranks.get(b.name) ?? null }));
  // Absent and null are the same fact (polylineSha256 is absent on short tracks and older events).
  const changed: string[] = FACT_KEYS.filter((k) =>
    canonical(fresh[k] ?? null) !== canonical(current.facts[k] ?? null)
  );

  const activity = { ...recorded, ...fresh, type: now.type as Recorded["type"], visibility: now.visibility };
  const matched = await matchActivity(platform.db, activity, derived.streams as ActivityStreams);
  const efforts = segmentEffortsRematched.schema.parse(keepUploadTimeAwards(matched, current.efforts, activityId));
  const effortsChanged = canonical(efforts.efforts) !== canonical(current.efforts?.efforts ?? []);
  if (effortsChanged) changed.push("segment_efforts");
  if (changed.length === 0) return { activityId, outcome: "unchanged" };

  await reprocess(platform, activityId, {
    facts: changed.some((c) => c !== "segment_efforts") ? fresh : null,
    efforts: effortsChanged ? efforts : null,
  }, systemActor("cli:reprocess", recorded.athleteId));
  return { activityId, outcome: "reprocessed", changed };
}

/** Every uploaded activity, oldest first. */
export function uploadedActivityIds(platform: Platform): Promise<number[]> {
  return uploadedActivities(platform.db);
}
