import { z } from "zod";
import { athleteStats } from "../../projections/athlete-stats/queries.ts";
import { forbidden } from "../http/errors.ts";
import { zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { zActivityStats } from "./schema.ts";
import { visibilitiesSeen } from "../privacy/engine.ts";

/** The athlete's UTC date today (YYYY-MM-DD); the stats' recent and year-to-date windows end on it. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

export const athleteStatsRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/stats",
    summary:
      "The activity stats of the authenticated athlete (Strava's ActivityStats): recent (4 weeks), year-to-date and all-time ride, run and swim totals of the activities their followers may see (visibility everyone or followers_only; never only_me), biggest ride distance and climb.",
    description: "Only the token's own athlete: any other id answers 403.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    response: zActivityStats,
    async handler({ platform, auth, params }) {
      if (params.id !== auth.athleteId) throw forbidden("Athlete", "id", "forbidden");
      // What the athlete's followers see of them: every activity but the only_me ones.
      const shared = visibilitiesSeen({ athleteId: auth.athleteId, viewPrivate: false }, auth.athleteId, false);
      const s = await athleteStats(platform.db, auth.athleteId, todayUtc(), shared);
      return activityStatsBody(s);
    },
  }),
];

/** Strava's ActivityStats from the athlete-stats read model, in Strava's key order (reference §4.2): the biggest ride and climb first. */
export function activityStatsBody(s: Awaited<ReturnType<typeof athleteStats>>) {
  return {
    biggest_ride_distance: s.biggestRideDistance,
    biggest_climb_elevation_gain: s.biggestClimbElevationGain,
    recent_ride_totals: s.totals.recent.ride,
    all_ride_totals: s.totals.all.ride,
    recent_run_totals: s.totals.recent.run,
    all_run_totals: s.totals.all.run,
    recent_swim_totals: s.totals.recent.swim,
    all_swim_totals: s.totals.all.swim,
    ytd_ride_totals: s.totals.ytd.ride,
    ytd_run_totals: s.totals.ytd.run,
    ytd_swim_totals: s.totals.ytd.swim,
  };
}
