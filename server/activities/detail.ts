import type { Queryable } from "../../events/db/types.ts";
import { type ActivityDetailRaw, activityDetailRaw, detailRowsOf } from "../../projections/queries/activity-detail.ts";
import { type Viewer, type ZoneSet, zoneSetOf } from "../privacy/engine.ts";
import type { ActivityContext, ActivityDetailPart, ActivityDetailPreload, ActivityExtension } from "./extensions.ts";
import type { ActivityRow } from "./represent.ts";
import { detailKey, keepDetail, keptDetail } from "./detail-cache.ts";
import { toJson } from "../../shared/json.ts";

const partsByExtensions = new WeakMap<readonly ActivityExtension[], readonly ActivityDetailPart[]>();

/**
 * The extensions' detail parts, one array per extension list (the platform's is fixed at start):
 * the statement's text is built once for it (activity-detail.ts keeps it by that array). A new
 * array per request built the statement's text anew for every GET (19 µs of 1.2 ms under load).
 */
function detailParts(extensions: readonly ActivityExtension[]): readonly ActivityDetailPart[] {
  let parts = partsByExtensions.get(extensions);
  if (!parts) partsByExtensions.set(extensions, parts = extensions.flatMap((e) => (e.part ? [e.part] : [])));
  return parts;
}

/** The detail statement's row as read (JSON values as text), with the parts it was read with. */
export interface ActivityDetailRead {
  raw: ActivityDetailRaw;
  parts: readonly ActivityDetailPart[];
  /** The owner and visibility (what deciding who may see it needs), without parsing anything. */
  athleteId: number;
  visibility: ActivityRow["visibility"];
}

/**
 * GET /v3/activities/:id: the activity row with everything its detail needs, read in one statement
 * (projections/queries/activity-detail.ts) with each extension's detail part (such as the segment
 * efforts). Parsed only by `detailOf`, so an answer kept for an equal row needs no parsing.
 */
export async function readActivityDetail(
  db: Queryable,
  id: number,
  viewer: Viewer | null,
  includeAllEfforts: boolean,
  extensions: readonly ActivityExtension[],
): Promise<ActivityDetailRead | undefined> {
  const parts = detailParts(extensions);
  const raw = await activityDetailRaw(db, id, viewer, includeAllEfforts, parts);
  return raw ? { raw, parts, athleteId: Number(raw.athlete_id), visibility: raw.visibility } : undefined;
}

/** The row and the preload the representation is built from (exactly as from the separate queries). */
export function detailOf(read: ActivityDetailRead): { row: ActivityRow; preload: ActivityDetailPreload } {
  const found = detailRowsOf(read.raw, read.parts);
  const zones: ZoneSet | undefined = found.zones && found.zones.length > 0 ? zoneSetOf(found.zones) : undefined;
  return {
    row: found.row,
    preload: { hasKudoed: found.hasKudoed, zones, gear: found.gear, photos: found.photos, parts: found.parts },
  };
}

/**
 * The detailed activity's JSON text: the one kept for an equal row of the same activity, viewer and
 * dialect (detail-cache.ts), else built by `represent` from the parsed row and kept when every
 * extension built its fields from the statement alone.
 */
export async function detailJson(
  read: ActivityDetailRead,
  context: Omit<ActivityContext, "preload">,
  represent: (row: ActivityRow, context: ActivityContext) => Promise<unknown>,
): Promise<string> {
  const key = detailKey(read.raw.id, context.viewer, context.dialect, context.includeAllEfforts, context.publicUrl);
  const kept = keptDetail(context.db, key, read.raw);
  if (kept !== undefined) return kept;
  const { row, preload } = detailOf(read);
  const full: ActivityContext = { ...context, preload };
  const body = toJson(await represent(row, full));
  if (context.extensions.every((e) => (!e.detail && !e.summary) || e.preloadSuffices?.(full) === true)) {
    keepDetail(context.db, key, read.raw, body);
  }
  return body;
}
