import { DomainError } from "../../events/decider.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { allPrivacyZones } from "../../projections/privacy-zones/queries.ts";
import { addPrivacyZone, removePrivacyZone } from "./commands.ts";
import { privacyZoneJson } from "./represent.ts";
import { systemActor } from "../actor.ts";
import { type CliCommand, CliUsageError, optionalString, requireInt, requireString } from "../cli/command.ts";

function requireNumber(o: Record<string, unknown>, name: string): number {
  const text = requireString(o, name);
  const n = Number(text);
  if (!Number.isFinite(n)) throw new CliUsageError(`--${name} must be a number`);
  return n;
}

async function requireAthlete(platform: Parameters<CliCommand["run"]>[0], id: number) {
  if (!(await findAthlete(platform.db, id))) throw new CliUsageError(`athlete ${id} does not exist`);
}

export const privacyZoneCommands: CliCommand[] = [
  {
    name: "privacy-zone add",
    summary:
      "Add a privacy zone: positions within --radius metres of --lat/--lng are hidden from others and from heatmaps.",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      lat: { type: "string", description: "latitude of the centre", required: true },
      lng: { type: "string", description: "longitude of the centre", required: true },
      radius: { type: "string", description: "radius in metres (1–20000)", required: true },
    },
    async run(platform, o) {
      const athleteId = requireInt(o, "athlete");
      await requireAthlete(platform, athleteId);
      try {
        const row = await addPrivacyZone(platform, {
          athleteId,
          lat: requireNumber(o, "lat"),
          lng: requireNumber(o, "lng"),
          radiusM: requireNumber(o, "radius"),
        }, systemActor("cli", athleteId));
        return { athlete_id: athleteId, ...privacyZoneJson(row) };
      } catch (error) {
        if (error instanceof DomainError) {
          throw new CliUsageError(`--${error.field === "id" ? "athlete" : error.field}: ${error.code}`);
        }
        throw error;
      }
    },
  },
  {
    name: "privacy-zone list",
    summary: "List privacy zones (every athlete's, or --athlete's).",
    options: { athlete: { type: "string", description: "only this athlete's zones" } },
    async run(platform, o) {
      const athlete = optionalString(o, "athlete");
      if (athlete !== undefined && !/^\d+$/.test(athlete)) {
        throw new CliUsageError("--athlete must be a positive integer");
      }
      const rows = await allPrivacyZones(platform.db, athlete === undefined ? null : Number(athlete));
      return rows.map((r) => ({ athlete_id: r.athlete_id, ...privacyZoneJson(r) }));
    },
    format: (result) => {
      const rows = result as { id: number; athlete_id: number; lat: number; lng: number; radius: number }[];
      if (rows.length === 0) return "no privacy zones";
      return rows.map((r) => `zone ${r.id}  athlete ${r.athlete_id}  ${r.lat}, ${r.lng}  radius ${r.radius} m`).join(
        "\n",
      );
    },
  },
  {
    name: "privacy-zone remove",
    summary: "Remove one privacy zone of an athlete.",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      id: { type: "string", description: "zone id", required: true },
    },
    async run(platform, o) {
      const athleteId = requireInt(o, "athlete");
      const id = requireInt(o, "id");
      try {
        await removePrivacyZone(platform, athleteId, id, systemActor("cli", athleteId));
      } catch (error) {
        if (error instanceof DomainError) throw new CliUsageError(`zone ${id} of athlete ${athleteId} does not exist`);
        throw error;
      }
      return { removed: id };
    },
  },
];
