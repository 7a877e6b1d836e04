import { handleCommand } from "../../events/decider.ts";
import { goalDecider } from "../../events/goal/decide.ts";
import { goalStream } from "../../events/goal/events.ts";
import type { EventData } from "../../events/catalogue.ts";
import type { goalSet } from "../../events/goal/events.ts";
import { type Actor, appendOptions } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";

export type NewGoal = Omit<EventData<typeof goalSet>, "goalId">;

/** Sets a goal for the athlete (the goal decider's rules: events/goal/decide.ts); answers its id. */
export async function setGoal(platform: Platform, goal: NewGoal, actor: Actor): Promise<number> {
  const goalId = await nextId(platform.db, "goal");
  await handleCommand(platform.store, goalStream(goal.athleteId), goalDecider, {
    type: "set",
    goal: { goalId, ...goal },
  }, appendOptions(actor));
  return goalId;
}

/** Removes one of the athlete's goals (404 Goal when it is not theirs). */
export async function deleteGoal(platform: Platform, athleteId: number, goalId: number, actor: Actor): Promise<void> {
  await handleCommand(platform.store, goalStream(athleteId), goalDecider, {
    type: "delete",
    goalId,
    athleteId,
  }, appendOptions(actor));
}
