import { addGear, updateGear } from "./commands.ts";
import { systemActor } from "../actor.ts";
import {
  type CliCommand,
  CliUsageError,
  optionalNumber,
  optionalString,
  requireInt,
  requireString,
} from "../cli/command.ts";

export const gearCommands: CliCommand[] = [
  {
    name: "gear add",
    summary: "Add a bike or a pair of shoes to an athlete's gear (ids b… / g…).",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      kind: { type: "string", description: "bike or shoe", required: true },
      name: { type: "string", description: "gear name", required: true },
      nickname: { type: "string", description: "nickname" },
      brand: { type: "string", description: "brand name" },
      model: { type: "string", description: "model name" },
      description: { type: "string", description: "description" },
      "frame-type": { type: "string", description: "bikes: 1 MTB, 2 cross, 3 road, 4 TT" },
      weight: { type: "string", description: "bikes: weight in kg" },
      primary: { type: "boolean", description: "make it the athlete's primary bike/shoes" },
    },
    async run(platform, o) {
      const kind = requireString(o, "kind");
      if (kind !== "bike" && kind !== "shoe") throw new CliUsageError("--kind must be bike or shoe");
      const id = await addGear(platform, {
        athleteId: requireInt(o, "athlete"),
        kind,
        name: requireString(o, "name"),
        nickname: optionalString(o, "nickname") ?? null,
        brandName: optionalString(o, "brand") ?? null,
        modelName: optionalString(o, "model") ?? null,
        description: optionalString(o, "description") ?? null,
        frameType: optionalNumber(o, "frame-type") ?? null,
        weight: optionalNumber(o, "weight") ?? null,
        primary: o.primary === true,
      });
      return { id };
    },
  },
  {
    name: "gear update",
    summary: "Retire a bike or shoes (or put it back in use), or set the distance to replace it at.",
    options: {
      athlete: { type: "string", description: "athlete id (the gear's owner)", required: true },
      gear: { type: "string", description: "gear id (b… or g…)", required: true },
      retired: { type: "string", description: "true or false" },
      "reminder-distance": { type: "string", description: "replace at this distance in metres (0: no reminder)" },
    },
    async run(platform, o) {
      const retired = optionalString(o, "retired");
      if (retired !== undefined && retired !== "true" && retired !== "false") {
        throw new CliUsageError("--retired must be true or false");
      }
      const athleteId = requireInt(o, "athlete");
      const gearId = requireString(o, "gear");
      await updateGear(platform, athleteId, gearId, {
        retired: retired === undefined ? undefined : retired === "true",
        reminderDistance: optionalNumber(o, "reminder-distance"),
      }, systemActor("cli", athleteId));
      return { id: gearId };
    },
  },
];
