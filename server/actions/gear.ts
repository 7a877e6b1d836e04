import { DomainError } from "../../events/decider.ts";
import { gearAdded, gearStream } from "../../events/gear/events.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../representations/athlete.ts";

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

/** Adds a bike (id b…) or shoes (id g…) to an athlete's gear; returns the gear id. */
export async function addGear(platform: Platform, input: NewGear, source = "cli"): Promise<string> {
  if (!(await findAthlete(platform.db, input.athleteId))) throw new DomainError("not_found", "Athlete", "id", "invalid");
  const name = input.name.trim();
  if (!name || name.length > 255) throw new DomainError("invalid", "Gear", "name", name ? "invalid" : "missing");
  if (input.kind === "shoe" && (input.frameType != null || input.weight != null)) {
    throw new DomainError("invalid", "Gear", "frame_type", "invalid", "frame type and weight are for bikes");
  }
  if (input.frameType != null && ![1, 2, 3, 4].includes(input.frameType)) throw new DomainError("invalid", "Gear", "frame_type", "invalid");
  if (input.weight != null && !(input.weight > 0 && input.weight < 100)) throw new DomainError("invalid", "Gear", "weight", "invalid");
  const gearId = `${input.kind === "bike" ? "b" : "g"}${await nextId(platform.db, "gear")}`;
  await platform.store.append(gearStream(input.athleteId), "any", [
    gearAdded.create({
      gearId,
      athleteId: input.athleteId,
      kind: input.kind,
      name,
      nickname: input.nickname ?? null,
      brandName: input.brandName ?? null,
      modelName: input.modelName ?? null,
      description: input.description ?? null,
      frameType: input.frameType ?? null,
      weight: input.weight ?? null,
      primary: input.primary ?? false,
    }),
  ], { metadata: { athleteId: input.athleteId, source } });
  return gearId;
}
