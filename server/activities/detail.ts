import type { Queryable } from "../../events/db/types.ts";
import { activityDetailRows } from "../../projections/queries/activity-detail.ts";
import { type Viewer, type ZoneSet, zoneSetOf } from "../privacy/engine.ts";
import type { ActivityDetailPart, ActivityDetailPreload, ActivityExtension } from "./extensions.ts";
import type { ActivityRow } from "./represent.ts";

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

/**
 * GET /v3/activities/:id: the activity row with everything its detail needs, read in one statement
 * (projections/queries/activity-detail.ts) with each extension's detail part (such as the segment
 * efforts). The representation is built from it exactly as from the separate queries.
 */
export async function findActivityDetail(
  db: Queryable,
  id: number,
  viewer: Viewer | null,
  includeAllEfforts: boolean,
  extensions: readonly ActivityExtension[],
): Promise<{ row: ActivityRow; preload: ActivityDetailPreload } | undefined> {
  const found = await activityDetailRows(db, id, viewer, includeAllEfforts, detailParts(extensions));
  if (!found) return undefined;
  const zones: ZoneSet | undefined = found.zones && found.zones.length > 0 ? zoneSetOf(found.zones) : undefined;
  return {
    row: found.row,
    preload: { hasKudoed: found.hasKudoed, zones, gear: found.gear, photos: found.photos, parts: found.parts },
  };
}
