import type { ActivityProcessor } from "./segments/processors.ts";
import { segmentEffortsProcessor } from "./segments/efforts.ts";
import { segmentProfileProcessor } from "./segments/profile.ts";

/** The processors, run in order (server/wiring.ts lists them with the rest). Add one line per processor. */
export const activityProcessors: readonly ActivityProcessor[] = [
  segmentEffortsProcessor,
  // Reads the efforts the line above recorded: measures segments that have no altitudes yet.
  segmentProfileProcessor,
];
