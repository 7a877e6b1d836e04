import type { Db } from "../events/db/types.ts";
import type { EventStore } from "../events/store.ts";
import type { ProjectionRunner } from "../projections/runner.ts";
import type { ActivityExtension } from "./activities/extensions.ts";
import type { AthleteDetailExtension } from "./athletes/detail-extras.ts";
import type { Config } from "./config.ts";
import type { JobRunner } from "./jobs/runner.ts";

/** Everything a handler, job or CLI command needs: the database, the log and the read models. */
export interface Platform {
  config: Config;
  db: Db;
  store: EventStore;
  projections: ProjectionRunner;
  jobs: JobRunner;
  /** What other families add to activities (server/wiring.ts), given to each activity representation. */
  activityExtensions: readonly ActivityExtension[];
  /** What other families add to the detailed athlete (server/wiring.ts). */
  athleteExtensions: readonly AthleteDetailExtension[];
  close(): Promise<void>;
}
