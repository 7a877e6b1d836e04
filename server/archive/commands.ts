/**
 * The commands of an archive import run (stream archive-import-<id>): started, checkpointed,
 * resumed by a server starting again, finished. The activities, gear and photos an import creates
 * go through their own families' commands; these only say how far the run got.
 */
import { archiveImportDecider } from "../../events/archive-import/decide.ts";
import { archiveImportStream } from "../../events/archive-import/events.ts";
import type {
  archiveImportFinished,
  archiveImportProgressed,
  archiveImportStarted,
} from "../../events/archive-import/events.ts";
import type { EventData } from "../../events/catalogue.ts";
import { handleCommand } from "../../events/decider.ts";
import { type Actor, appendOptions } from "../actor.ts";
import type { Platform } from "../platform.ts";

/** Records an import posted by an athlete (ArchiveImportStarted); its archive waits in the inbox. */
export async function startArchiveImport(
  platform: Platform,
  start: EventData<typeof archiveImportStarted>,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, archiveImportStream(start.importId), archiveImportDecider, {
    type: "start",
    start,
  }, appendOptions(actor));
}

/** Records a checkpoint: the entries finished and the failures since the last one. */
export async function recordArchiveImportProgress(
  platform: Platform,
  progress: EventData<typeof archiveImportProgressed>,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, archiveImportStream(progress.importId), archiveImportDecider, {
    type: "progress",
    progress,
  }, appendOptions(actor));
}

/** Records that a server starting again resumed an unfinished import. */
export async function resumeArchiveImport(
  platform: Platform,
  importId: string,
  athleteId: number,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, archiveImportStream(importId), archiveImportDecider, {
    type: "resume",
    importId,
    athleteId,
  }, appendOptions(actor));
}

/** Records the end of an import: done, refused or interrupted. */
export async function finishArchiveImport(
  platform: Platform,
  finish: EventData<typeof archiveImportFinished>,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, archiveImportStream(finish.importId), archiveImportDecider, {
    type: "finish",
    finish,
  }, appendOptions(actor));
}
