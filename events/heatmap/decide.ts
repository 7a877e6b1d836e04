import { type Decider, DomainError } from "../decider.ts";
import {
  heatmapActivitiesSelected,
  heatmapBuildStarted,
  heatmapBuilt,
  heatmapDeleted,
  type HeatmapEvent,
  heatmapFailed,
  heatmapRequested,
  type HeatmapStatus,
  heatmapTracksGathered,
  heatmapTracksUpdated,
  STATUS_AFTER,
} from "./events.ts";
import type { EventData } from "../catalogue.ts";

export interface HeatmapState {
  exists: boolean;
  deleted: boolean;
  athleteId: number;
  status: HeatmapStatus | null;
}

type Ids = { mapId: number; athleteId: number };

export type HeatmapCommand =
  | ({ type: "request" } & EventData<typeof heatmapRequested>)
  | ({ type: "start" } & Ids)
  | ({ type: "select" } & EventData<typeof heatmapActivitiesSelected>)
  | ({ type: "gathered" } & EventData<typeof heatmapTracksGathered>)
  | ({ type: "built" } & EventData<typeof heatmapBuilt>)
  | ({ type: "update" } & EventData<typeof heatmapTracksUpdated>)
  | ({ type: "fail" } & EventData<typeof heatmapFailed>)
  | ({ type: "delete" } & Ids);

/** The status a build step must find before it may run. */
const STEP_FROM: Record<string, HeatmapStatus> = {
  start: "queued",
  select: "building",
  gathered: "gathering",
  built: "generating",
  update: "done",
};

const conflict = () => new DomainError("conflict", "Heatmap", "status", "invalid");

/** A heatmap: requested once, built in order, then kept up to date (updates), failed or deleted (only by its athlete). */
export const heatmapDecider: Decider<HeatmapState, HeatmapCommand, HeatmapEvent> = {
  initialState: () => ({ exists: false, deleted: false, athleteId: 0, status: null }),
  evolve(state, event: HeatmapEvent) {
    if (event.type === heatmapRequested.type) {
      return { ...state, exists: true, athleteId: event.data.athleteId, status: "queued" };
    }
    if (event.type === heatmapDeleted.type) return { ...state, deleted: true };
    const status = STATUS_AFTER[event.type];
    return status ? { ...state, status } : state;
  },
  decide(command, state) {
    if (command.type === "request") {
      if (state.exists) throw new DomainError("conflict", "Heatmap", "id", "already exists");
      const { type: _, ...d } = command;
      if (d.startDateLocal !== null && d.endDateLocal !== null && d.startDateLocal > d.endDateLocal) {
        throw new DomainError("invalid", "Heatmap", "end_date_local", "invalid");
      }
      return [heatmapRequested.create(d)];
    }
    if (!state.exists || state.deleted) throw new DomainError("not_found", "Heatmap", "id", "invalid");
    if (command.type === "delete") {
      if (state.athleteId !== command.athleteId) {
        throw new DomainError("forbidden", "Heatmap", "athlete_id", "forbidden");
      }
      return [heatmapDeleted.create({ mapId: command.mapId, athleteId: state.athleteId })];
    }
    if (command.type === "fail") {
      if (state.status === "done" || state.status === "error") throw conflict();
      const { type: _, ...data } = command;
      return [heatmapFailed.create(data)];
    }
    if (state.status !== STEP_FROM[command.type]) throw conflict();
    switch (command.type) {
      case "start": {
        const { type: _, ...data } = command;
        return [heatmapBuildStarted.create(data)];
      }
      case "select": {
        const { type: _, ...data } = command;
        return [heatmapActivitiesSelected.create(data)];
      }
      case "gathered": {
        const { type: _, ...data } = command;
        return [heatmapTracksGathered.create(data)];
      }
      case "built": {
        const { type: _, ...data } = command;
        return [heatmapBuilt.create(data)];
      }
      case "update": {
        const { type: _, ...data } = command;
        return [heatmapTracksUpdated.create(data)];
      }
    }
    throw conflict();
  },
};
