import type { EventMetadata } from "../events/types.ts";
import type { Auth } from "./http/auth.ts";

/**
 * Who asks for a command, and through what: recorded as the metadata of every event the command
 * appends. Every feature's `commands.ts` takes an `Actor` and turns it into append options with
 * `appendOptions` — the one place command metadata is built, whether the command came from the
 * API, a page, the CLI, the demo seed or a background job.
 */
export type Actor = Readonly<EventMetadata>;

/** A request to the API (or a page, which calls the API with its own application's token). */
export function requestActor(auth: Pick<Auth, "athleteId" | "applicationId">, requestId: string): Actor {
  return { athleteId: auth.athleteId, applicationId: auth.applicationId, requestId };
}

/** The web pages acting for a signed-in athlete outside an API request (sessions, page tokens). */
export function webActor(athleteId: number, applicationId?: number): Actor {
  return { athleteId, ...(applicationId === undefined ? {} : { applicationId }), source: "web" };
}

/** Work the platform does on its own: "cli", "seed", "job:upload", "archive:api", "erasure"… */
export function systemActor(source: string, athleteId?: number, applicationId?: number): Actor {
  return {
    ...(athleteId === undefined ? {} : { athleteId }),
    ...(applicationId === undefined ? {} : { applicationId }),
    source,
  };
}

/** The append options of a command: its actor as metadata. */
export function appendOptions(actor: Actor): { metadata: EventMetadata } {
  return { metadata: { ...actor } };
}
