import type { Projection } from "./projection.ts";
import { athletesProjection } from "./athletes/projection.ts";
import { applicationsProjection } from "./applications/projection.ts";
import { followsProjection } from "./follows/projection.ts";
import { activitiesProjection } from "./activities/projection.ts";
import { gearProjection } from "./gear/projection.ts";
import { oauthProjection } from "./oauth/projection.ts";
import { clubsProjection } from "./clubs/projection.ts";
import { clubFeedProjection } from "./club-feed/projection.ts";
import { challengesProjection } from "./challenges/projection.ts";
import { privacyZonesProjection } from "./privacy-zones/projection.ts";
import { heatmapsProjection } from "./heatmaps/projection.ts";
import { heatmapSourcesProjection } from "./heatmaps/sources.ts";
import { segmentsProjection } from "./segments/projection.ts";
import { uploadsProjection } from "./uploads/projection.ts";
import { pushSubscriptionsProjection } from "./push-subscriptions/projection.ts";
import { athleteStatsProjection } from "./athlete-stats/projection.ts";
import { routesProjection } from "./routes/projection.ts";
import { archiveImportsProjection } from "./archive-imports/projection.ts";
import { athletePicturesProjection } from "./athlete-pictures/projection.ts";
import { trainingLoadProjection } from "./training-load/projection.ts";
import { activityEditsProjection } from "./activity-edits/projection.ts";
import { goalsProjection } from "./goals/projection.ts";
import { trainingVolumeProjection } from "./training-volume/projection.ts";
import { recordsProjection } from "./records/projection.ts";
import { activityListProjection } from "./activity-list/projection.ts";

/** Every read model of the platform. Add one line per projection. */
export const allProjections: Projection[] = [
  athletesProjection,
  applicationsProjection,
  followsProjection,
  activitiesProjection,
  gearProjection,
  oauthProjection,
  clubsProjection,
  clubFeedProjection,
  privacyZonesProjection,
  heatmapsProjection,
  heatmapSourcesProjection,
  segmentsProjection,
  // After segments: segment challenges count only efforts the segments projection has not shielded.
  challengesProjection,
  uploadsProjection,
  pushSubscriptionsProjection,
  athleteStatsProjection,
  routesProjection,
  archiveImportsProjection,
  athletePicturesProjection,
  trainingLoadProjection,
  activityEditsProjection,
  goalsProjection,
  trainingVolumeProjection,
  recordsProjection,
  activityListProjection,
];
