import { type Decider, DomainError } from "../decider.ts";
import type { EventData } from "../catalogue.ts";
import { GOAL_MAX, goalDeleted, type GoalEvent, goalSet, MAX_GOALS } from "./events.ts";

/** One athlete's goals: id → what it measures (sport, period, dimension). */
export interface GoalsState {
  goals: Map<number, string>;
}

export type GoalCommand =
  | { type: "set"; goal: EventData<typeof goalSet> }
  | { type: "delete"; goalId: number; athleteId: number };

const key = (g: { type: string; period: string; dimension: string }) => `${g.type}|${g.period}|${g.dimension}`;

/**
 * An athlete's goals: a target above 0 and within its dimension's bound, at most MAX_GOALS, one per
 * sport, period and dimension (a second is a conflict: change it by deleting the first); deleting
 * only an existing one of one's own.
 */
export const goalDecider: Decider<GoalsState, GoalCommand, GoalEvent> = {
  initialState: () => ({ goals: new Map() }),
  evolve(state, event: GoalEvent) {
    const goals = new Map(state.goals);
    if (event.type === goalSet.type) goals.set(event.data.goalId, key(event.data));
    else goals.delete(event.data.goalId);
    return { goals };
  },
  decide(command, state) {
    if (command.type === "delete") {
      if (!state.goals.has(command.goalId)) throw new DomainError("not_found", "Goal", "id", "invalid");
      return [goalDeleted.create({ goalId: command.goalId, athleteId: command.athleteId })];
    }
    const g = command.goal;
    if (!(Number.isFinite(g.goal) && g.goal > 0 && g.goal <= GOAL_MAX[g.dimension])) {
      throw new DomainError("invalid", "Goal", "goal", "invalid");
    }
    if ([...state.goals.values()].includes(key(g))) {
      throw new DomainError(
        "conflict",
        "Goal",
        "type",
        "already exists",
        "a goal of this sport, period and dimension exists",
      );
    }
    if (state.goals.size >= MAX_GOALS) throw new DomainError("invalid", "Goal", "id", "too many");
    if (state.goals.has(g.goalId)) throw new DomainError("conflict", "Goal", "id", "already exists");
    return [goalSet.create(g)];
  },
};
