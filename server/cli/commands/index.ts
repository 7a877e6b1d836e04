import type { CliCommand } from "../command.ts";
import { coreCommands } from "./core.ts";
import { followCommands } from "./follows.ts";

/** Every admin CLI command. Add one spread per command family. */
export const allCommands: CliCommand[] = [
  ...coreCommands,
  ...followCommands,
];
