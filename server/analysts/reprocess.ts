import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { activityReprocessed, reprocessedFacts } from "../../events/activity/reprocessed.ts";
import type { EventData } from "../../events/catalogue.ts";
import { uploadReceived, uploadStream } from "../../events/upload/events.ts";
import { toJson } from "../../shared/json.ts";
import type { z } from "zod";
import { getBlob, putBlob } from "../blobs.ts";
import { inflate, parseDeviceFile } from "../ingest/decode.ts";
import { deriveActivity } from "../ingest/derive.ts";
import type { Platform } from "../platform.ts";

type Facts = z.infer<typeof reprocessedFacts>;
type Recorded = EventData<typeof activityRecorded>;
type Received = EventData<typeof uploadReceived>;

export type ReprocessOutcome =
  | { activityId: number; outcome: "reprocessed"; changed: string[] }
  | { activityId: number; outcome: "unchanged" }
  | { activityId: number; outcome: "skipped"; reason: string };

const FACT_KEYS: (keyof Facts)[] = [
  "distance", "movingTime", "elapsedTime", "totalElevationGain", "elevHigh", "elevLow", "startLatlng",
  "endLatlng", "averageSpeed", "maxSpeed", "averageCadence", "averageTemp", "averageWatts", "maxWatts",
  "weightedAverageWatts", "kilojoules", "deviceWatts", "hasHeartrate", "averageHeartrate", "maxHeartrate",
  "calories", "sufferScore", "deviceName", "polyline", "summaryPolyline", "streamsSha256", "laps",
  "splitsMetric", "splitsStandard", "bestEfforts",
];

/** JSON with object keys sorted (jsonb stores keys in its own order). */
function canonical(value: unknown): string {
  return toJson(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}

function pick(source: Facts | Recorded): Facts {
  return Object.fromEntries(FACT_KEYS.map((k) => [k, source[k]])) as Facts;
}

/** The measured facts as they stand now: the recording, then every later re-derivation. */
async function currentFacts(platform: Platform, activityId: number): Promise<{ recorded: Recorded; facts: Facts } | undefined> {
  const events = await platform.store.readStream(activityStream(activityId));
  const recorded = events.find((e) => e.type === activityRecorded.type)?.data as Recorded | undefined;
  if (!recorded) return undefined;
  let facts = pick(recorded);
  for (const e of events) {
    if (e.type === activityReprocessed.type) facts = (e.data as EventData<typeof activityReprocessed>).facts;
  }
  return { recorded, facts };
}

/**
 * Re-derives an uploaded activity's measured facts from its stored original file with today's
 * algorithms and appends ActivityReprocessed when they differ (nothing when they are the same).
 * Best-effort PR ranks awarded at upload time are kept by distance name.
 */
export async function reprocessActivity(platform: Platform, activityId: number): Promise<ReprocessOutcome> {
  const current = await currentFacts(platform, activityId);
  if (!current) return { activityId, outcome: "skipped", reason: "not an uploaded activity (manual or unknown)" };
  const { recorded } = current;
  if (recorded.uploadId === null) return { activityId, outcome: "skipped", reason: "no upload" };
  const [first] = await platform.store.readStream(uploadStream(recorded.uploadId));
  if (!first || first.type !== uploadReceived.type) return { activityId, outcome: "skipped", reason: "upload not found" };
  const received = first.data as Received;
  const original = await getBlob(platform.db, received.originalSha256);
  if (!original) return { activityId, outcome: "skipped", reason: "the original file is no longer stored" };
  const [athlete] = await platform.db.query<{ premium: boolean; weight: number | null; birthdate: string | null }>(
    "select premium, weight, birthdate from athletes where id = $1",
    [recorded.athleteId],
  );
  const parsed = await parseDeviceFile(inflate(original, received.dataType, platform.config.maxUploadBytes), received.dataType);
  const derived = deriveActivity(parsed, {
    uploadId: received.uploadId,
    externalId: received.externalId,
    activityType: received.activityType,
    defaultType: "Ride",
    name: received.name,
    description: received.description,
    private: received.private,
    trainer: received.trainer,
    commute: received.commute,
    athlete: { premium: athlete?.premium ?? false, weight: athlete?.weight ?? null, birthdate: athlete?.birthdate ?? null },
  });
  const streamsSha256 = await putBlob(platform.db, new TextEncoder().encode(JSON.stringify(derived.streams)));
  const ranks = new Map(current.facts.bestEfforts.map((b) => [b.name, b.prRank]));
  // Through the event's schema first, so the comparison sees exactly what would be stored.
  const fresh = reprocessedFacts.parse(pick({ ...derived.facts, streamsSha256 } as unknown as Facts));
  fresh.bestEfforts = fresh.bestEfforts.map((b) => ({ ...b, prRank: ranks.get(b.name) ?? null }));
  const changed = FACT_KEYS.filter((k) => canonical(fresh[k]) !== canonical(current.facts[k]));
  if (changed.length === 0) return { activityId, outcome: "unchanged" };
  await platform.store.append(activityStream(activityId), "any", [
    activityReprocessed.create({ activityId, athleteId: recorded.athleteId, facts: fresh }),
  ], { metadata: { athleteId: recorded.athleteId, source: "cli:reprocess" } });
  return { activityId, outcome: "reprocessed", changed };
}

/** Every uploaded activity, oldest first. */
export async function uploadedActivityIds(platform: Platform): Promise<number[]> {
  const rows = await platform.db.query<{ id: number }>("select id from activities where upload_id is not null order by id");
  return rows.map((r) => Number(r.id));
}
