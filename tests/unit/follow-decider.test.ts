import { describe, it } from "vitest";
import { athleteFollowed, athleteUnfollowed } from "../../events/athlete/events.ts";
import { followDecider } from "../../events/follow/decide.ts";
import { given } from "../helpers/decider.ts";

const followed = athleteFollowed.create({ athleteId: 1, targetId: 2 });

describe("follow decider", () => {
  it("follows an athlete not yet followed", () =>
    given(followDecider, []).when({ type: "follow", athleteId: 1, targetId: 2 }).then([followed]));

  it("does nothing when already following", () =>
    given(followDecider, [followed]).when({ type: "follow", athleteId: 1, targetId: 2 }).then([]));

  it("unfollows a followed athlete, and does nothing for one not followed", () => {
    given(followDecider, [followed]).when({ type: "unfollow", athleteId: 1, targetId: 2 })
      .then([athleteUnfollowed.create({ athleteId: 1, targetId: 2 })]);
    given(followDecider, [followed, athleteUnfollowed.create({ athleteId: 1, targetId: 2 })])
      .when({ type: "unfollow", athleteId: 1, targetId: 2 }).then([]);
  });

  it("refuses following oneself", () =>
    given(followDecider, []).when({ type: "follow", athleteId: 3, targetId: 3 }).thenError("invalid", "invalid"));
});
