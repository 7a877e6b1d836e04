import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/**
 * Routes: planned courses an athlete keeps (Strava's Route). One stream per route (`route-<id>`).
 * The geometry is recorded once, in the creation event: an encoded polyline (precision 5) of every
 * point and, when a source gave them, one altitude per point.
 */
export const routeCreated = defineEvent({
  type: "RouteCreated",
  description:
    "An athlete created a route, cut from an activity (only what their token saw, without points inside privacy zones when others may read it) or drawn as a line. Carries its geometry (encoded polyline, precision 5; altitudes per point or null) and its derived facts.",
  schema: z.object({
    routeId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    name: z.string().min(1).max(255),
    description: z.string().max(2000),
    /** Strava's route type: 1 ride, 2 run. */
    type: z.union([z.literal(1), z.literal(2)]),
    /** Strava's sub type: 1 road, 2 mountain bike, 3 cross, 4 trail, 5 mixed. */
    subType: z.number().int().min(1).max(5),
    private: z.boolean(),
    /** The activity it was cut from (null: drawn). */
    activityId: z.number().int().positive().nullable(),
    polyline: z.string().min(1),
    altitudes: z.array(z.number()).nullable(),
    distance: z.number().nonnegative(),
    elevationGain: z.number().nonnegative(),
    estimatedMovingTime: z.number().int().nonnegative(),
  }),
});

export const routeDeleted = defineEvent({
  type: "RouteDeleted",
  description: "An athlete deleted one of their routes.",
  schema: z.object({ routeId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const routeStream = (routeId: number) => `route-${routeId}`;

/** The events of a route's stream (`routeStream`, `routeDecider`). */
export type RouteEvent = EventOf<
  | typeof routeCreated
  | typeof routeDeleted
>;
