import { expect } from "vitest";
import type { NewEvent } from "../../events/catalogue.ts";
import { type Decider, DomainError, fold } from "../../events/decider.ts";
import type { CatalogueEvent } from "../../events/index.ts";

/**
 * The one way decider tests read: given events / when command / then events, or then an error.
 *   given(clubDecider, [created]).when({ type: "join", athleteId: 2 }).then([clubJoined.create(…)])
 *   given(clubDecider, []).when(…).thenError("not_found", "invalid")
 * `thenTypes` compares only the event types; `events()` returns what was decided (for folding on).
 */
export function given<State, Command, Event extends CatalogueEvent>(
  decider: Decider<State, Command, Event>,
  history: readonly NewEvent[],
) {
  return {
    when(command: Command) {
      const decide = () => decider.decide(command, fold(decider, history));
      return {
        events: (): NewEvent[] => decide(),
        then(expected: readonly NewEvent[]) {
          expect(decide()).toEqual(expected);
        },
        thenTypes(expected: readonly string[]) {
          expect(decide().map((e) => e.type)).toEqual(expected);
        },
        thenError(kind: DomainError["kind"], code: string) {
          let error: unknown;
          try {
            decide();
          } catch (e) {
            error = e;
          }
          expect(error, "the command was accepted").toBeInstanceOf(DomainError);
          expect(`${(error as DomainError).kind}:${(error as DomainError).code}`).toBe(`${kind}:${code}`);
        },
      };
    },
  };
}
