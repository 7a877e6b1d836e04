import type { CliCommand } from "../command.ts";
import { coreCommands } from "./core.ts";

/** Every admin CLI command. Add one spread per command family. */
export const allCommands: CliCommand[] = [
  ...coreCommands,
];
