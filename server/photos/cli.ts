import { linkExternalPhoto } from "./commands.ts";
import {
  type CliCommand,
  CliUsageError,
  optionalNumber,
  optionalString,
  requireInt,
  requireString,
} from "../cli/command.ts";

export const photoCommands: CliCommand[] = [
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
