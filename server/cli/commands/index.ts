import type { CliCommand } from "../command.ts";
import { coreCommands } from "./core.ts";
import { followCommands } from "./follows.ts";
import { activityCommands } from "./activities.ts";
import { analystsCommands } from "./analysts.ts";
import { clubCommands } from "./clubs.ts";
import { challengeCommands } from "./challenges.ts";
import { segmentCommands } from "./segments.ts";
import { privacyZoneCommands } from "./privacy-zones.ts";
import { webhookCommands } from "./webhooks.ts";
import { operationsCommands } from "./operations.ts";
import { archiveCommands } from "./archive.ts";
import { routeCommands } from "./routes.ts";

/** Every admin CLI command. Add one spread per command family. */
export const allCommands: CliCommand[] = [
  ...coreCommands,
  ...segmentCommands,
  ...followCommands,
  ...activityCommands,
  ...analystsCommands,
  ...clubCommands,
  ...challengeCommands,
  ...privacyZoneCommands,
  ...webhookCommands,
  ...operationsCommands,
  ...archiveCommands,
  ...routeCommands,
];
