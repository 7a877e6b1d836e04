import { describe, it } from "vitest";
import { activityDecider } from "../../events/activity/decide.ts";
import { activityCreated } from "../../events/activity/events.ts";
import { kudosGiven } from "../../events/activity/changes.ts";
import { applicationDecider } from "../../events/application/decide.ts";
import {
  accessTokenIssued,
  applicationRegistered,
  applicationSecretRegenerated,
} from "../../events/application/events.ts";
import { platformDecider } from "../../events/platform/decide.ts";
import { platformInitialized } from "../../events/platform/events.ts";
import { given } from "../helpers/decider.ts";

const manual = {
  activityId: 5,
  athleteId: 1,
  name: "Lunch run",
  type: "Run" as const,
  startDate: "2024-05-06T11:00:00Z",
  startDateLocal: "2024-05-06T12:00:00Z",
  timezone: "(GMT+01:00) UTC+01:00",
  elapsedTime: 1800,
  distance: 5200,
  description: null,
  visibility: "everyone" as const,
  trainer: false,
  commute: false,
};

describe("platform decider", () => {
  it("initialises a database once; a second claim is a conflict", () => {
    given(platformDecider, []).when({ type: "initialize", demo: true }).then([
      platformInitialized.create({ demo: true }),
    ]);
    given(platformDecider, [platformInitialized.create({ demo: false })]).when({ type: "initialize", demo: true })
      .thenError("conflict", "already exists");
  });
});

describe("activity decider: creating a manual activity, kudos", () => {
  it("creates once; kudos from others once, never on one's own", () => {
    given(activityDecider, []).when({ type: "create", activity: manual }).then([activityCreated.create(manual)]);
    given(activityDecider, [activityCreated.create(manual)]).when({ type: "create", activity: manual }).thenError(
      "conflict",
      "already exists",
    );
    given(activityDecider, [activityCreated.create(manual)]).when({ type: "kudos", activityId: 5, athleteId: 2 })
      .then([kudosGiven.create({ activityId: 5, athleteId: 2 })]);
    given(activityDecider, [activityCreated.create(manual), kudosGiven.create({ activityId: 5, athleteId: 2 })])
      .when({ type: "kudos", activityId: 5, athleteId: 2 }).thenError("conflict", "already exists");
    given(activityDecider, [activityCreated.create(manual)]).when({ type: "kudos", activityId: 5, athleteId: 1 })
      .thenError("forbidden", "own activity");
    given(activityDecider, []).when({ type: "kudos", activityId: 5, athleteId: 2 }).thenError("not_found", "invalid");
  });
});

describe("application decider", () => {
  const application = {
    applicationId: 3,
    ownerId: 1,
    name: "App",
    website: null,
    description: null,
    callbackDomain: "localhost:8080",
    clientSecretHash: "h1",
    internal: false,
    kudosEnabled: false,
    challengesEnabled: false,
  };
  const publicToken = {
    tokenHash: "t",
    athleteId: 1,
    applicationId: 3,
    scopes: ["read" as const],
    kind: "public" as const,
    expiresAt: null,
    grantId: null,
    audience: "api" as const,
  };
  it("registers once with its public token; needs a name and a callback domain; regenerates a secret only once registered", () => {
    given(applicationDecider, []).when({ type: "register", application, publicToken })
      .then([applicationRegistered.create(application), accessTokenIssued.create(publicToken)]);
    given(applicationDecider, [applicationRegistered.create(application)]).when({
      type: "register",
      application,
      publicToken,
    })
      .thenError("conflict", "already exists");
    given(applicationDecider, []).when({ type: "register", application: { ...application, name: " " }, publicToken })
      .thenError("invalid", "missing");
    given(applicationDecider, []).when({
      type: "register",
      application: { ...application, callbackDomain: "http://x/" },
      publicToken,
    })
      .thenError("invalid", "invalid");
    given(applicationDecider, [applicationRegistered.create(application)]).when({
      type: "regenerateSecret",
      applicationId: 3,
      clientSecretHash: "h2",
    })
      .then([applicationSecretRegenerated.create({ applicationId: 3, clientSecretHash: "h2" })]);
    given(applicationDecider, []).when({ type: "regenerateSecret", applicationId: 3, clientSecretHash: "h2" })
      .thenError("not_found", "invalid");
  });
});
