import type { CliCommand } from "./cli/command.ts";
import { athleteCommands, followCommands } from "./athletes/cli.ts";
import { applicationCommands } from "./applications/cli.ts";
import { gearCommands } from "./gear/cli.ts";
import { photoCommands } from "./photos/cli.ts";
import { analystsCommands } from "./analysts/cli.ts";
import { clubCommands } from "./clubs/cli.ts";
import { challengeCommands } from "./challenges/cli.ts";
import { segmentCommands } from "./segments/cli.ts";
import { privacyZoneCommands } from "./privacy-zones/cli.ts";
import { webhookCommands } from "./webhooks/cli.ts";
import { operationsCommands } from "./ops/cli.ts";
import { archiveCommands } from "./archive/cli.ts";
import { routeCommands } from "./athlete-routes/cli.ts";
import { elevationCommands } from "./elevation/cli.ts";

/** Every admin CLI command. Add one spread per command family. */
export const allCommands: CliCommand[] = [
  ...athleteCommands,
  ...applicationCommands,
  ...segmentCommands,
  ...followCommands,
  ...gearCommands,
  ...photoCommands,
  ...analystsCommands,
  ...clubCommands,
  ...challengeCommands,
  ...privacyZoneCommands,
  ...webhookCommands,
  ...operationsCommands,
  ...archiveCommands,
  ...routeCommands,
  ...elevationCommands,
];
