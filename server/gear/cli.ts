import { addGear } from "./commands.ts";
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
];
