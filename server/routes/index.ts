import type { AnyRoute } from "../http/route.ts";
import { athleteRoutes } from "./athletes.ts";

/** Every declared route of the platform (the route table). Add one spread per resource family. */
export const allRoutes: AnyRoute[] = [
  ...athleteRoutes,
];
