import { DomainError, handleCommand } from "../../events/decider.ts";
import { gearDecider } from "../../events/gear/decide.ts";
import { gearStream } from "../../events/gear/events.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { findGear } from "../../projections/gear/queries.ts";

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

/** What PUT /v3/gear/:id (or the CLI) may change; absent fields stay as they are. */
export interface GearChanges {
  name?: string;
  nickname?: string | null;
  brandName?: string | null;
  modelName?: string | null;
  description?: string | null;
  primary?: boolean;
  retired?: boolean;
  /** Replace at this distance (metres); null or 0 clears the reminder. */
  reminderDistance?: number | null;
}

/**
 * Changes one of the athlete's gear (another athlete's or unknown gear: 404 Gear); the gear decider
 * rules on the fields (events/gear/decide.ts).
 */
export async function updateGear(
  platform: Platform,
  athleteId: number,
  gearId: string,
  changes: GearChanges,
  actor: Actor,
): Promise<void> {
  const gear = await findGear(platform.db, gearId);
  if (!gear || Number(gear.athlete_id) !== athleteId) throw new DomainError("not_found", "Gear", "id", "invalid");
  const reminder = changes.reminderDistance;
  await handleCommand(platform.store, gearStream(athleteId), gearDecider, {
    type: "update",
    changes: {
      gearId,
      athleteId,
      name: changes.name?.trim(),
      nickname: changes.nickname,
      brandName: changes.brandName,
      modelName: changes.modelName,
      description: changes.description,
      primary: changes.primary,
      retired: changes.retired,
      reminderDistance: reminder === undefined ? undefined : reminder === null || reminder === 0 ? null : reminder,
    },
  }, appendOptions(actor));
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
