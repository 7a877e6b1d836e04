import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

export const platformInitialized = defineEvent({
  type: "PlatformInitialized",
  description:
    "The first server to start on an empty database claimed its initialisation (and creates the demo platform when asked to).",
  schema: z.object({ demo: z.boolean() }),
});

export const PLATFORM_STREAM = "platform";

/** The events of the platform stream (`platformDecider`). */
export type PlatformEvent = EventOf<typeof platformInitialized>;
