import { describe, expect, it } from "vitest";
import { athleteFollowed, athleteUnfollowed } from "../../events/athlete/events.ts";
import type { NewEvent } from "../../events/catalogue.ts";
import { DomainError, fold } from "../../events/decider.ts";
import { type FollowCommand, followDecider } from "../../events/follow/decide.ts";

/** given events / when command / then events (or error). */
function given(events: NewEvent[]) {
  return {
    when: (command: FollowCommand) => ({
      then: (expected: NewEvent[]) => expect(followDecider.decide(command, fold(followDecider, events))).toEqual(expected),
      thenError: (code: string) => {
        let error: unknown;
        try {
          followDecider.decide(command, fold(followDecider, events));
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(DomainError);
        expect((error as DomainError).code).toBe(code);
      },
    }),
  };
}

describe("follow decider", () => {
  it("follows an athlete not yet followed", () =>
    given([]).when({ type: "follow", athleteId: 1, targetId: 2 }).then([athleteFollowed.create({ athleteId: 1, targetId: 2 })]));

  it("does nothing when already following", () =>
    given([athleteFollowed.create({ athleteId: 1, targetId: 2 })]).when({ type: "follow", athleteId: 1, targetId: 2 }).then([]));

  it("unfollows a followed athlete, and does nothing for one not followed", () => {
    given([athleteFollowed.create({ athleteId: 1, targetId: 2 })])
      .when({ type: "unfollow", athleteId: 1, targetId: 2 })
      .then([athleteUnfollowed.create({ athleteId: 1, targetId: 2 })]);
    given([athleteFollowed.create({ athleteId: 1, targetId: 2 }), athleteUnfollowed.create({ athleteId: 1, targetId: 2 })])
      .when({ type: "unfollow", athleteId: 1, targetId: 2 })
      .then([]);
  });

  it("refuses following oneself", () => given([]).when({ type: "follow", athleteId: 3, targetId: 3 }).thenError("invalid"));
});
