import { type Decider, DomainError } from "../decider.ts";
import type { EventData } from "../catalogue.ts";
import {
  type ArchiveImportEvent,
  archiveImportFinished,
  archiveImportProgressed,
  archiveImportResumed,
  archiveImportStarted,
} from "./events.ts";

/** One archive import (stream archive-import-<id>). */
export interface ArchiveImportState {
  started: boolean;
  finished: boolean;
  athleteId: number | null;
  /** Keys of the archive entries already checkpointed (a resumed run skips them). */
  done: Set<string>;
  /** Activities found, as last checkpointed. */
  total: number;
}

export type ArchiveImportCommand =
  | { type: "start"; start: EventData<typeof archiveImportStarted> }
  | { type: "progress"; progress: EventData<typeof archiveImportProgressed> }
  | { type: "resume"; importId: string; athleteId: number }
  | { type: "finish"; finish: EventData<typeof archiveImportFinished> };

/**
 * Started once; checkpoints and the finish only while it runs (after the finish they are dropped,
 * not errors: a run stopping late has nothing left to say); an entry is counted once, however often
 * a resumed run reports it; resumed only when started and not finished.
 */
export const archiveImportDecider: Decider<ArchiveImportState, ArchiveImportCommand, ArchiveImportEvent> = {
  initialState: () => ({ started: false, finished: false, athleteId: null, done: new Set(), total: 0 }),
  evolve(state, event: ArchiveImportEvent) {
    switch (event.type) {
      case archiveImportStarted.type:
        return { ...state, started: true, athleteId: event.data.athleteId };
      case archiveImportProgressed.type: {
        const done = new Set(state.done);
        for (const e of event.data.entries) done.add(e.key);
        return { ...state, done, total: event.data.total };
      }
      case archiveImportFinished.type:
        return { ...state, finished: true };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === "start") {
      if (state.started) throw new DomainError("conflict", "Import", "id", "already exists");
      return [archiveImportStarted.create(command.start)];
    }
    if (!state.started) throw new DomainError("not_found", "Import", "id", "invalid");
    if (state.finished) return [];
    switch (command.type) {
      case "progress": {
        const seen = new Set<string>();
        const entries = command.progress.entries.filter((e) =>
          !state.done.has(e.key) && !seen.has(e.key) && seen.add(e.key)
        );
        if (entries.length === 0 && command.progress.failed.length === 0 && command.progress.total === state.total) {
          return [];
        }
        return [archiveImportProgressed.create({ ...command.progress, entries })];
      }
      case "resume":
        return [archiveImportResumed.create({ importId: command.importId, athleteId: command.athleteId })];
      case "finish":
        return [archiveImportFinished.create(command.finish)];
    }
  },
};
