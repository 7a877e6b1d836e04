import { kudoedByAthlete, photosOf } from "../../projections/activities/queries.ts";
import { findGear } from "../../projections/gear/queries.ts";
import { fullPolyline } from "../blobs.ts";
import {
  followedOwners,
  type Release,
  releaseOf,
  type Viewer,
  viewerAudience,
  type ZoneSet,
  zonesOfOwnersFor,
} from "../privacy/engine.ts";
import type { ActivityContext } from "./extensions.ts";
import { type ActivityRow, detailedActivityOf, hasPlace, type SummaryActivity, summaryActivity } from "./represent.ts";

/**
 * What activities' representations need from the database (kudos of the viewer, privacy zones,
 * gear, photos, the full polyline, the activity extensions' fields), read for a page of rows at
 * once, then handed to the pure representation (server/activities/represent.ts).
 */

export { type ActivityRow, findActivity, normalizeActivityRow } from "../../projections/activities/queries.ts";
export { processingUploadOf } from "../../projections/uploads/queries.ts";

/**
 * The privacy zones that apply to each row for this viewer (through the privacy engine): the
 * owner's zones, except for the owner with view_private (who sees everything as recorded). Loaded
 * once for a page of rows; rows whose owner has no zones are absent.
 */
async function zonesFor(rows: readonly ActivityRow[], context: ActivityContext): Promise<Map<number, ZoneSet>> {
  return await zonesOfOwnersFor(context.db, rows.filter(hasPlace), viewerAudience(context.viewer));
}

/** What of the row this viewer may see (privacy engine), the owners the viewer follows being known. */
function releaseFor(
  row: ActivityRow,
  viewer: Viewer | null,
  zones: ZoneSet | undefined,
  followed: ReadonlySet<number>,
): Release {
  return releaseOf(row, viewerAudience(viewer), zones, followed.has(row.athlete_id));
}

function kudoedBy(context: ActivityContext, ids: readonly number[]): Promise<Set<number>> {
  return context.viewer ? kudoedByAthlete(context.db, context.viewer.athleteId, ids) : Promise.resolve(new Set());
}

async function summariesWithZones(rows: readonly ActivityRow[], context: ActivityContext) {
  const contributors = context.extensions.flatMap((e) => (e.summary ? [e.summary] : []));
  const [kudoed, zones, followed, extras] = await Promise.all([
    kudoedBy(context, rows.map((r) => r.id)),
    zonesFor(rows, context),
    followedOwners(context.db, rows, context.viewer),
    Promise.all(contributors.map((c) => c(rows, context))),
  ]);
  const summaries = rows.map((row) => {
    const release = releaseFor(row, context.viewer, zones.get(row.athlete_id), followed);
    const own = extras.map((extra) => extra.get(row.id) ?? {});
    return summaryActivity(row, release, kudoed.has(row.id), own, context.dialect);
  });
  return { summaries, zones, followed };
}

/** Summary activities (resource_state 2) for a page of rows, as this context's viewer may see them. */
export async function summaryActivities(rows: readonly ActivityRow[], context: ActivityContext) {
  return (await summariesWithZones(rows, context)).summaries;
}

/** The detailed activity (resource_state 3), from the preload when the row was read with it (detail.ts). */
export async function detailedActivity(row: ActivityRow, context: ActivityContext) {
  const pre = context.preload;
  let summary: SummaryActivity;
  let release: Release;
  if (pre) {
    const followed = await followedOwners(context.db, [row], context.viewer);
    release = releaseFor(row, context.viewer, hasPlace(row) ? pre.zones : undefined, followed);
    const extras: Record<string, unknown>[] = [];
    for (const extension of context.extensions) {
      if (extension.summary) extras.push((await extension.summary([row], context)).get(row.id) ?? {});
    }
    summary = summaryActivity(row, release, pre.hasKudoed, extras, context.dialect);
  } else {
    const loaded = await summariesWithZones([row], context);
    summary = loaded.summaries[0];
    release = releaseFor(row, context.viewer, loaded.zones.get(row.athlete_id), loaded.followed);
  }
  const gear = pre ? pre.gear : row.gear_id ? await findGear(context.db, row.gear_id) : undefined;
  const photos = pre ? pre.photos : await photosOf(context.db, row.id);
  const polyline = await fullPolyline(context.db, row.facts);
  const extras: Record<string, unknown>[] = [];
  for (const extension of context.extensions) {
    if (extension.detail) extras.push(await extension.detail(row, context));
  }
  const reads = { gear, photos, polyline, publicUrl: context.publicUrl };
  return detailedActivityOf(row, summary, release, reads, extras, context.dialect);
}
