import type { AnyRoute } from "./route.ts";

/** Strava's operationIds (its published API model) for the operations it has. */
const STRAVA_OPERATION_IDS: Record<string, string> = {
  "GET /v3/athlete": "getLoggedInAthlete",
  "PUT /v3/athlete": "updateLoggedInAthlete",
  "GET /v3/athlete/zones": "getLoggedInAthleteZones",
  "GET /v3/athletes/:id/stats": "getStats",
  "GET /v3/athlete/activities": "getLoggedInAthleteActivities",
  "GET /v3/athlete/clubs": "getLoggedInAthleteClubs",
  "POST /v3/activities": "createActivity",
  "GET /v3/activities/:id": "getActivityById",
  "PUT /v3/activities/:id": "updateActivityById",
  "GET /v3/activities/:id/laps": "getLapsByActivityId",
  "GET /v3/activities/:id/zones": "getZonesByActivityId",
  "GET /v3/activities/:id/comments": "getCommentsByActivityId",
  "GET /v3/activities/:id/kudos": "getKudoersByActivityId",
  "GET /v3/activities/:id/streams": "getActivityStreams",
  "GET /v3/segment_efforts/:id/streams": "getSegmentEffortStreams",
  "GET /v3/segments/:id/streams": "getSegmentStreams",
  "GET /v3/segment_efforts/:id": "getSegmentEffortById",
  "GET /v3/segment_efforts": "getEffortsBySegmentId",
  "GET /v3/segments/:id": "getSegmentById",
  "GET /v3/segments/starred": "getLoggedInAthleteStarredSegments",
  "PUT /v3/segments/:id/starred": "starSegment",
  "GET /v3/segments/explore": "exploreSegments",
  "GET /v3/clubs/:id": "getClubById",
  "GET /v3/clubs/:id/members": "getClubMembersById",
  "GET /v3/clubs/:id/admins": "getClubAdminsById",
  "GET /v3/clubs/:id/activities": "getClubActivitiesById",
  "GET /v3/gear/:id": "getGearById",
  "POST /v3/uploads": "createUpload",
  "GET /v3/uploads/:id": "getUploadById",
  "POST /v3/push_subscriptions": "createPushSubscription",
  "GET /v3/push_subscriptions": "getPushSubscriptions",
  "DELETE /v3/push_subscriptions/:id": "deletePushSubscription",
  "GET /v3/routes/:id": "getRouteById",
  "GET /v3/athletes/:id/routes": "getRoutesByAthleteId",
  "GET /v3/routes/:id/streams": "getRouteStreams",
  "GET /v3/routes/:id/export_gpx": "getRouteAsGPX",
  "GET /v3/routes/:id/export_tcx": "getRouteAsTCX",
};

const camel = (words: string[]) => words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join("");

/**
 * The operationId of a route: Strava's where Strava has the operation, else one made from the
 * method and path (DELETE /v3/activities/:id → deleteActivitiesById).
 */
export function operationIdOf(route: AnyRoute): string {
  const key = `${route.method} ${route.path}`;
  const known = STRAVA_OPERATION_IDS[key];
  if (known) return known;
  const verb = { GET: "get", POST: "create", PUT: "update", DELETE: "delete" }[route.method];
  const parts = route.path.replace(/^\/(api\/)?v3\//, "").split("/").flatMap((part) => {
    const param = /^:(.+)$/.exec(part);
    const name = (param ? param[1] : part).split("_");
    return param ? ["by", ...name] : name;
  });
  return camel([verb, ...parts]);
}
