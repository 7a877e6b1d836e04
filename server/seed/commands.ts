import { DomainError, handleCommand } from "../../events/decider.ts";
import { platformDecider } from "../../events/platform/decide.ts";
import { PLATFORM_STREAM } from "../../events/platform/events.ts";
import { ConcurrencyError } from "../../events/types.ts";
import { type Actor, appendOptions } from "../actor.ts";
import type { Platform } from "../platform.ts";

/**
 * Claims the database for this server (the platform stream's one PlatformInitialized; only the
 * demo seed records it). Several servers may start together on one empty PostgreSQL: answers
 * false when another one's claim landed first.
 */
export async function initializePlatform(platform: Platform, demo: boolean, actor: Actor): Promise<boolean> {
  try {
    await handleCommand(
      platform.store,
      PLATFORM_STREAM,
      platformDecider,
      { type: "initialize", demo },
      appendOptions(actor),
    );
    return true;
  } catch (error) {
    if (error instanceof ConcurrencyError || (error instanceof DomainError && error.kind === "conflict")) return false;
    throw error;
  }
}
