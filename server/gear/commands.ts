import { DomainError, handleCommand } from "../../events/decider.ts";
import { gearDecider } from "../../events/gear/decide.ts";
import { gearStream } from "../../events/gear/events.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";

export interface NewGear {
  athleteId: number;
  kind: "bike" | "shoe";
  name: string;
  nickname?: string | null;
  brandName?: string | null;
  modelName?: string | null;
  description?: string | null;
  /** Bikes: 1 MTB, 2 cross, 3 road, 4 TT. */
  frameType?: number | null;
  weight?: number | null;
  primary?: boolean;
}

/** Adds a bike (id b…) or shoes (id g…) to an athlete's gear (the CLI's actor unless told); returns the gear id. */
export async function addGear(
  platform: Platform,
  input: NewGear,
  actor: Actor = systemActor("cli", input.athleteId),
): Promise<string> {
  if (!(await findAthlete(platform.db, input.athleteId))) {
    throw new DomainError("not_found", "Athlete", "id", "invalid");
  }
  const gearId = `${input.kind === "bike" ? "b" : "g"}${await nextId(platform.db, "gear")}`;
  await handleCommand(platform.store, gearStream(input.athleteId), gearDecider, {
    type: "add",
    gear: {
      gearId,
      athleteId: input.athleteId,
      kind: input.kind,
      name: input.name.trim(),
      nickname: input.nickname ?? null,
      brandName: input.brandName ?? null,
      modelName: input.modelName ?? null,
      description: input.description ?? null,
      frameType: input.frameType ?? null,
      weight: input.weight ?? null,
      primary: input.primary ?? false,
    },
  }, appendOptions(actor));
  return gearId;
}
