/**
 * What the server plugs together, listed in one place (no side-effect imports): the event
 * catalogue, the read models, the work that follows an activity's recording, and what other
 * families add to activities and athletes. The HTTP routes are listed in server/route-table.ts, the jobs in
 * server/job-kinds.ts, the CLI commands in server/cli-commands.ts.
 */
import { catalogue } from "../events/index.ts";
import { allProjections } from "../projections/index.ts";
import { activityProcessors } from "./activity-processors.ts";
import type { ActivityExtension } from "./activities/extensions.ts";
import type { AthleteDetailExtension } from "./athletes/detail-extras.ts";
import { athleteClubs } from "./clubs/athlete-clubs.ts";
import { athleteGear } from "./gear/athlete-gear.ts";
import { segmentsActivityExtension } from "./segments/activity-detail.ts";

export { activityProcessors, allProjections, catalogue };

/**
 * Families that add fields to activities (GET /v3/activities/:id, lists, feeds). One line each; the
 * platform carries this list into every activity representation (server/activities/access.ts).
 */
export const activityExtensions: readonly ActivityExtension[] = [
  segmentsActivityExtension,
];

/** Families that add to the detailed athlete (GET /v3/athlete and the athlete's own reads). One line each. */
export const athleteExtensions: readonly AthleteDetailExtension[] = [
  athleteGear,
  athleteClubs,
];
