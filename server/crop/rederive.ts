import { activityStream } from "../../events/activity/events.ts";
import { type RecordingWindow, type WindowFacts, windowFacts } from "../../events/activity/cropped.ts";
import type { ActivityFacts } from "../ingest/derive.ts";
import { DomainError } from "../../events/decider.ts";
import { segmentEffortsRematched } from "../../events/segment/events.ts";
import { type ReceivedUpload, receivedUpload } from "../../events/upload/received.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { type ActivityRow, findActivity } from "../activities/read.ts";
import { blobFile, getBlob, putBlob } from "../blobs.ts";
import { IngestError } from "../ingest/types.ts";
import type { Platform } from "../platform.ts";
import { effortIdFor, EFFORTS_PER_ACTIVITY, matchActivity } from "../segments/efforts.ts";
import { rankBestEfforts } from "../uploads/best-efforts.ts";
import type { DecodedUpload } from "../uploads/decode-derive.ts";
import { deriveContextOf, deriveFile } from "../uploads/derive-upload.ts";
import { keepPolyline } from "../uploads/polyline-blob.ts";
import { type Matched, type Standing, standingOf, windowFactsOf, windowMs } from "./history.ts";

/** An uploaded activity with what re-deriving it needs: its standing, its row, its upload and the original file. */
export interface Source {
  activityId: number;
  standing: Standing;
  row: ActivityRow;
  received: ReceivedUpload;
  /** The original's bytes, or the path of its file blob. */
  original: Uint8Array | string;
}

/** The owner's uploaded activity as a Source (404 unknown, 400 manual, 409 original no longer stored). */
export async function loadSource(platform: Platform, activityId: number): Promise<Source> {
  const row = await findActivity(platform.db, activityId);
  if (!row) throw new DomainError("not_found", "Activity", "id", "invalid");
  const standing = standingOf(await platform.store.readStream(activityStream(activityId)));
  const uploadId = standing?.recorded.uploadId ?? null;
  if (!standing || uploadId === null) {
    throw new DomainError("invalid", "Activity", "id", "not uploaded", "only an uploaded activity is cropped or split");
  }
  const received = await receivedUpload(platform.store, uploadId);
  const original = received &&
    (await blobFile(platform.db, received.originalSha256) ?? await getBlob(platform.db, received.originalSha256));
  if (!received || !original) {
    throw new DomainError("conflict", "Activity", "original", "missing", "the original file is no longer stored");
  }
  return { activityId, standing, row, received, original };
}

/** The activity's streams and facts over a window of the original file (400 when the window holds no recording). */
export async function deriveWindow(
  platform: Platform,
  source: Source,
  window: RecordingWindow,
): Promise<DecodedUpload> {
  try {
    return await deriveFile(
      source.original,
      source.received,
      await deriveContextOf(platform.db, source.received),
      platform.config.maxUploadBytes,
      platform.config.deriveWorkers,
      undefined,
      undefined,
      windowMs(window),
    );
  } catch (error) {
    if (error instanceof Error && error.name === IngestError.name) {
      throw new DomainError("invalid", "Activity", "window", "no recording", error.message);
    }
    throw error;
  }
}

/**
 * The window's facts as an event records them: the streams and a long polyline kept as blobs, best
 * efforts ranked — those found again in `keepFrom` (same distance, start and time) keep the rank
 * they had, the others are ranked now among the athlete's other activities (as at upload).
 */
export async function storedFacts(
  platform: Platform,
  decoded: DecodedUpload,
  athleteId: number,
  rankAs: { activityId: number; keepFrom: WindowFacts | null },
): Promise<ActivityFacts> {
  const { derived } = decoded;
  const streamsSha256 = await putBlob(platform.db, decoded.streamsJson, { file: true, sha256: decoded.streamsSha256 });
  const polyline = await keepPolyline(platform.db, derived.facts.polyline);
  const facts: ActivityFacts = { ...derived.facts, ...polyline, streamsSha256 };
  const before = new Map((rankAs.keepFrom?.bestEfforts ?? []).map((b) => [b.name, b]));
  const same = (b: ActivityFacts["bestEfforts"][number]) => {
    const old = before.get(b.name);
    return old !== undefined && old.elapsedTime === b.elapsedTime && old.startDate === b.startDate;
  };
  const ranked = await rankBestEfforts(
    platform.db,
    athleteId,
    rankAs.activityId,
    facts.bestEfforts.filter((b) => !same(b)),
  );
  const fresh = new Map(ranked.map((b) => [b.name, b.prRank]));
  facts.bestEfforts = facts.bestEfforts.map((b) => ({
    ...b,
    prRank: same(b) ? before.get(b.name)!.prRank : fresh.get(b.name) ?? null,
  }));
  return facts;
}

/** The measured facts of full facts, as ActivityCropped records them (through its schema). */
export function cropFacts(facts: ActivityFacts): WindowFacts {
  return windowFacts.parse(windowFactsOf(facts as unknown as WindowFacts));
}

/**
 * The activity's segment efforts over the window: matched on the window's streams as at upload.
 * An effort found again (same segment, start and time) keeps its id, ranks, achievements and
 * importance; a new one takes an id the activity never used and its ranks against the boards now.
 * Null when they are the efforts it has.
 */
export async function windowEfforts(
  platform: Platform,
  source: Source,
  facts: WindowFacts,
  streams: ActivityStreams,
): Promise<Matched | null> {
  const { row, standing } = source;
  const activity = {
    ...standing.recorded,
    ...facts,
    activityId: source.activityId,
    type: row.type as typeof standing.recorded.type,
    visibility: row.visibility,
  };
  const fresh = await matchActivity(platform.db, activity, streams);
  const before = standing.efforts?.efforts ?? [];
  const key = (e: { segmentId: number; startDate: string; elapsedTime: number }) =>
    `${e.segmentId}|${e.startDate}|${e.elapsedTime}`;
  const earlier = new Map(before.map((e) => [key(e), e]));
  const used = new Set(standing.effortIds);
  let slot = 0;
  const efforts = [];
  for (const e of fresh.efforts) {
    const old = earlier.get(key(e));
    if (old) {
      efforts.push({
        ...e,
        effortId: old.effortId,
        komRank: old.komRank,
        prRank: old.prRank,
        achievements: old.achievements,
        hidden: old.hidden,
      });
      continue;
    }
    while (slot < EFFORTS_PER_ACTIVITY && used.has(effortIdFor(source.activityId, slot))) slot++;
    if (slot >= EFFORTS_PER_ACTIVITY) break;
    const effortId = effortIdFor(source.activityId, slot);
    used.add(effortId);
    efforts.push({ ...e, effortId });
  }
  const data = segmentEffortsRematched.schema.parse({
    ...fresh,
    efforts,
    prCount: efforts.filter((e) => e.prRank === 1).length,
    achievementCount: efforts.reduce((n, e) => n + e.achievements.length, 0),
  });
  return sameEfforts(data, standing.efforts) ? null : data;
}

/** Whether two matchings hold the same efforts (none and never matched are the same). */
export function sameEfforts(a: Matched | null, b: Matched | null): boolean {
  return canonical(a?.efforts ?? []) === canonical(b?.efforts ?? []);
}

/** JSON with object keys sorted (events read back from jsonb keep keys in an order of their own). */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return JSON.stringify(sort(value));
}
