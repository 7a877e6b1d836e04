import type { DocumentedPaths } from "./http/openapi.ts";
import type { AnyRoute } from "./http/route.ts";
import { oauthPaths } from "./oauth/openapi.ts";
import { athleteRoutes } from "./athletes/routes.ts";
import { athleteStatsRoutes } from "./athletes/stats-routes.ts";
import { athleteZonesRoutes } from "./athletes/zones-routes.ts";
import { activityRoutes } from "./activities/routes.ts";
import { activitySocialRoutes } from "./activities/social-routes.ts";
import { activityPhotoRoutes } from "./photos/routes.ts";
import { activityDataRoutes } from "./activities/streams-routes.ts";
import { gearRoutes } from "./gear/routes.ts";
import { clubRoutes } from "./clubs/routes.ts";
import { challengeRoutes } from "./challenges/routes.ts";
import { segmentRoutes } from "./segments/routes.ts";
import { segmentCompareRoutes } from "./segments/compare-routes.ts";
import { uploadRoutes } from "./uploads/routes.ts";
import { heatmapRoutes } from "./heatmaps/routes.ts";
import { privacyZoneRoutes } from "./privacy-zones/routes.ts";
import { pushSubscriptionRoutes } from "./webhooks/routes.ts";
import { importRoutes } from "./archive/routes.ts";
import { athleteRouteEndpoints } from "./athlete-routes/routes.ts";
import { athleteFeedRoutes } from "./feeds/routes.ts";
import { activitySearchRoutes } from "./feeds/search-routes.ts";
import { athleteFitnessRoutes } from "./training/routes.ts";
import { athleteRecordRoutes } from "./training/records.ts";
import { athleteVolumeRoutes } from "./training/volume.ts";
import { gearCreateRoutes } from "./gear/create-routes.ts";
import { athletePictureRoutes } from "./avatars/routes.ts";
import { activityExportRoutes } from "./activities/export-routes.ts";
import { discoverRoutes } from "./discover/routes.ts";
import { activityEditRoutes } from "./crop/routes.ts";
import { goalRoutes } from "./goals/routes.ts";

/** Every declared route of the platform (the route table). Add one spread per resource family. */
export const allRoutes: AnyRoute[] = [
  ...athleteRecordRoutes,
  ...athleteVolumeRoutes,
  ...athleteFitnessRoutes,
  ...activitySearchRoutes,
  ...athleteFeedRoutes, // before activityRoutes: /v3/activities/following is not /v3/activities/:id
  ...discoverRoutes, // before /v3/clubs/:id, /v3/athletes/:id, /v3/challenges/:id
  ...segmentRoutes,
  ...segmentCompareRoutes,
  ...athleteRoutes,
  ...athleteStatsRoutes,
  ...athleteZonesRoutes,
  ...activityRoutes,
  ...activitySocialRoutes,
  ...activityPhotoRoutes,
  ...activityDataRoutes,
  ...activityExportRoutes,
  ...activityEditRoutes,
  ...gearRoutes,
  ...clubRoutes,
  ...challengeRoutes,
  ...uploadRoutes,
  ...heatmapRoutes,
  ...privacyZoneRoutes,
  ...pushSubscriptionRoutes,
  ...importRoutes,
  ...athleteRouteEndpoints,
  ...gearCreateRoutes,
  ...athletePictureRoutes,
  ...goalRoutes,
];

/** Endpoints served outside the route table but documented in the OpenAPI document beside it. */
export const documentedPaths: readonly DocumentedPaths[] = [oauthPaths];
