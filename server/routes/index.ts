import type { AnyRoute } from "../http/route.ts";
import { athleteRoutes } from "./athletes.ts";
import { athleteStatsRoutes } from "./athlete-stats.ts";
import { athleteZonesRoutes } from "./athlete-zones.ts";
import { activityRoutes } from "./activities.ts";
import { activitySocialRoutes } from "./activity-social.ts";
import { activityPhotoRoutes } from "./activity-photos.ts";
import { activityDataRoutes } from "./activity-data.ts";
import { gearRoutes } from "./gear.ts";
import { clubRoutes } from "./clubs.ts";
import { challengeRoutes } from "./challenges.ts";
import { segmentRoutes } from "./segments.ts";
import { uploadRoutes } from "./uploads.ts";
import { heatmapRoutes } from "./heatmaps.ts";
import { privacyZoneRoutes } from "./privacy-zones.ts";
import { pushSubscriptionRoutes } from "./push-subscriptions.ts";
import { importRoutes } from "./imports.ts";
import { routeRoutes } from "./routes.ts";
import { athleteFeedRoutes } from "./athlete-feeds.ts";
import { athleteFitnessRoutes, athleteRecordRoutes } from "./athlete-records.ts";
import { gearCreateRoutes } from "./gear-create.ts";
import { athletePictureRoutes } from "./athlete-picture.ts";
import { activityExportRoutes } from "./activity-export.ts";
import { discoverRoutes } from "./discover.ts";

/** Every declared route of the platform (the route table). Add one spread per resource family. */
export const allRoutes: AnyRoute[] = [
  ...athleteRecordRoutes,
  ...athleteFitnessRoutes,
  ...athleteFeedRoutes, // before activityRoutes: /v3/activities/following is not /v3/activities/:id
  ...discoverRoutes, // before /v3/clubs/:id, /v3/athletes/:id, /v3/challenges/:id
  ...segmentRoutes,
  ...athleteRoutes,
  ...athleteStatsRoutes,
  ...athleteZonesRoutes,
  ...activityRoutes,
  ...activitySocialRoutes,
  ...activityPhotoRoutes,
  ...activityDataRoutes,
  ...activityExportRoutes,
  ...gearRoutes,
  ...clubRoutes,
  ...challengeRoutes,
  ...uploadRoutes,
  ...heatmapRoutes,
  ...privacyZoneRoutes,
  ...pushSubscriptionRoutes,
  ...importRoutes,
  ...routeRoutes,
  ...gearCreateRoutes,
  ...athletePictureRoutes,
];
