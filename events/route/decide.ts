import { type Decider, DomainError } from "../decider.ts";
import type { EventOfType } from "../index.ts";
import { routeCreated, routeDeleted, type RouteEvent } from "./events.ts";

export interface RouteState {
  athleteId: number | null;
  deleted: boolean;
}

export type RouteCommand =
  | { type: "create"; route: EventOfType<"RouteCreated">["data"] }
  | { type: "delete"; routeId: number; athleteId: number };

/** One route: created once with a name and at least two points; deleted only by its owner. */
export const routeDecider: Decider<RouteState, RouteCommand, RouteEvent> = {
  initialState: () => ({ athleteId: null, deleted: false }),
  evolve(state, event: RouteEvent) {
    if (event.type === routeCreated.type) return { athleteId: event.data.athleteId, deleted: false };
    if (event.type === routeDeleted.type) return { ...state, deleted: true };
    return state;
  },
  decide(command, state) {
    if (command.type === "delete") {
      if (state.athleteId === null || state.deleted) throw new DomainError("not_found", "Route", "id", "invalid");
      if (state.athleteId !== command.athleteId) throw new DomainError("forbidden", "Route", "athlete", "forbidden");
      return [routeDeleted.create({ routeId: command.routeId, athleteId: command.athleteId })];
    }
    if (state.athleteId !== null) throw new DomainError("conflict", "Route", "id", "already exists");
    const r = command.route;
    if (!r.name.trim()) throw new DomainError("invalid", "Route", "name", "missing");
    if (r.name.length > 255) throw new DomainError("invalid", "Route", "name", "invalid");
    if (!r.polyline || !(r.distance > 0)) {
      throw new DomainError("invalid", "Route", "latlng", "invalid", "a route needs at least two distinct points");
    }
    if (r.type !== 1 && r.type !== 2) throw new DomainError("invalid", "Route", "type", "invalid");
    if (!Number.isInteger(r.subType) || r.subType < 1 || r.subType > 5) {
      throw new DomainError("invalid", "Route", "sub_type", "invalid");
    }
    return [routeCreated.create({ ...r, name: r.name.trim() })];
  },
};
