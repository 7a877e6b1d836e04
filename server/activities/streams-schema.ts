import { z } from "zod";
import { STREAM_KEYS } from "../../shared/streams.ts";
import { model } from "../http/schema.ts";

/** One stream as Strava answers it (reference §3.2). */
const stream = z.object({
  data: z.array(z.union([z.number(), z.boolean(), z.tuple([z.number(), z.number()]), z.null()])),
  series_type: z.enum(["distance", "time"]),
  original_size: z.number().int(),
  resolution: z.enum(["low", "medium", "high"]),
});

/** Strava's StreamSet: keyed by type with key_by_type=true, else an array whose items carry `type`. */
export const zStreamSet = model(
  "StreamSet",
  z.union([
    z.object(Object.fromEntries(STREAM_KEYS.map((k) => [k, stream.optional()]))).strict(),
    z.array(stream.extend({ type: z.enum(STREAM_KEYS) }).strict()),
  ]),
  "Streams keyed by type (key_by_type=true) or as a list with `type`; resolution low/medium/high down-samples to 100/1000/10000 points.",
  {
    time: { data: [0, 1, 2], series_type: "distance", original_size: 3, resolution: "high" },
    heartrate: { data: [121, 124, 126], series_type: "distance", original_size: 3, resolution: "high" },
  },
);
