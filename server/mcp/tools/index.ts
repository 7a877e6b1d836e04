import type { Tool } from "../tool.ts";
import { activityTools } from "./activities.ts";
import { athleteTools } from "./athlete.ts";
import { clubTools } from "./clubs.ts";
import { routeTools } from "./routes.ts";
import { segmentTools } from "./segments.ts";
import { writeTools } from "./writes.ts";

/** Every tool of the MCP endpoint, in the order tools/list gives them (reads first). */
export const MCP_TOOLS: readonly Tool[] = [
  ...athleteTools,
  ...activityTools,
  ...segmentTools,
  ...clubTools,
  ...routeTools,
  ...writeTools,
];
