import type { Platform } from "./platform.ts";
import type { JobKind } from "./jobs/runner.ts";
import { uploadJob } from "./uploads/job.ts";
import { heatmapBuildJob } from "./heatmaps/build.ts";
import { webhookDeliveryJob } from "./webhooks/job.ts";
import { archiveImportJob } from "./archive/runs.ts";
import { erasureJob } from "./accounts/commands.ts";

/** Durable job kinds (upload processing, heatmap builds, webhook deliveries). Add one per kind. */
export const jobKinds: ((platform: Platform) => JobKind)[] = [
  uploadJob,
  heatmapBuildJob,
  webhookDeliveryJob,
  archiveImportJob,
  erasureJob,
];
