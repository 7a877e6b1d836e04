import { addGear } from "../gear/commands.ts";
import { linkExternalPhoto } from "../photos/commands.ts";
import { type CliCommand, CliUsageError, optionalNumber, optionalString, requireInt, requireString } from "../cli/command.ts";

export const activityCommands: CliCommand[] = [
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
    name: "photo link",
    summary: "Link an external-source photo (source 2) to an activity.",
    options: {
      activity: { type: "string", description: "activity id", required: true },
      ref: { type: "string", description: "link to the photo at the external source", required: true },
      url: { type: "string", description: "image URL", required: true },
      uid: { type: "string", description: "id at the external source (default: the ref)" },
      caption: { type: "string", description: "caption" },
      "uploaded-at": { type: "string", description: "when uploaded to the external source (ISO 8601)" },
      lat: { type: "string", description: "latitude where taken" },
      lng: { type: "string", description: "longitude where taken" },
    },
    async run(platform, o) {
      const lat = optionalNumber(o, "lat");
      const lng = optionalNumber(o, "lng");
      if ((lat === undefined) !== (lng === undefined)) throw new CliUsageError("--lat and --lng go together");
      const id = await linkExternalPhoto(platform, {
        activityId: requireInt(o, "activity"),
        ref: requireString(o, "ref"),
        url: requireString(o, "url"),
        uid: optionalString(o, "uid"),
        caption: optionalString(o, "caption"),
        uploadedAt: optionalString(o, "uploaded-at"),
        location: lat !== undefined && lng !== undefined ? [lat, lng] : null,
      });
      return { id };
    },
  },
];
