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
  /** The map's tracks blobs that no event released yet (normally one: its latest). */
  tracks: string[];
}

type Ids = { mapId: number; athleteId: number };

export type HeatmapCommand =
  | ({ type: "request" } & EventData<typeof heatmapRequested>)
  | ({ type: "start" } & Ids)
  | ({ type: "select" } & EventData<typeof heatmapActivitiesSelected>)
  | ({ type: "gathered" } & EventData<typeof heatmapTracksGathered>)
  | ({ type: "built" } & EventData<typeof heatmapBuilt>)
  | ({ type: "update" } & Omit<EventData<typeof heatmapTracksUpdated>, "releasedTracksSha256s">)
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

/** `list` less the blobs in `gone`. */
const without = (list: string[], gone: string[]) => list.filter((sha) => !gone.includes(sha));

const conflict = () => new DomainError("conflict", "Heatmap", "status", "invalid");

/** A heatmap: requested once, built in order, then kept up to date (updates), failed or deleted (only by its athlete). */
export const heatmapDecider: Decider<HeatmapState, HeatmapCommand, HeatmapEvent> = {
  initialState: () => ({ exists: false, deleted: false, athleteId: 0, status: null, tracks: [] }),
  evolve(state, event: HeatmapEvent) {
    if (event.type === heatmapRequested.type) {
      return { ...state, exists: true, athleteId: event.data.athleteId, status: "queued" };
    }
    if (event.type === heatmapDeleted.type) {
      return { ...state, deleted: true, tracks: without(state.tracks, event.data.releasedTracksSha256s) };
    }
    if (event.type === heatmapTracksGathered.type) {
      return {
        ...state,
        status: "generating",
        tracks: [...without(state.tracks, [event.data.tracksSha256]), event.data.tracksSha256],
      };
    }
    if (event.type === heatmapTracksUpdated.type) {
      const kept = without(state.tracks, [...event.data.releasedTracksSha256s, event.data.tracksSha256]);
      return { ...state, status: "done", tracks: [...kept, event.data.tracksSha256] };
    }
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
      return [heatmapDeleted.create({
        mapId: command.mapId,
        athleteId: state.athleteId,
        releasedTracksSha256s: state.tracks,
      })];
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
        // Every earlier tracks blob is superseded by this one (the map reads only its latest).
        const releasedTracksSha256s = state.tracks.filter((sha) => sha !== data.tracksSha256);
        return [heatmapTracksUpdated.create({ ...data, releasedTracksSha256s })];
      }
    }
    throw conflict();
  },
};
