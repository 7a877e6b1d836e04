import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import { type PlatformEvent, platformInitialized } from "./events.ts";

/** The platform stream: whether a server has initialised this database. */
export interface PlatformState {
  initialized: boolean;
}

export type PlatformCommand = { type: "initialize" } & EventData<typeof platformInitialized>;

/** A database is initialised once: the first server to start on it claims it (several may start together). */
export const platformDecider: Decider<PlatformState, PlatformCommand, PlatformEvent> = {
  initialState: () => ({ initialized: false }),
  evolve: (state, event: PlatformEvent) => event.type === platformInitialized.type ? { initialized: true } : state,
  decide(command, state) {
    if (state.initialized) {
      throw new DomainError("conflict", "Platform", "", "already exists", "the platform is initialised");
    }
    return [platformInitialized.create({ demo: command.demo })];
  },
};
