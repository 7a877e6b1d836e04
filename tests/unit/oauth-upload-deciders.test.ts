import { describe, expect, it } from "vitest";
import { activityDecider } from "../../events/activity/decide.ts";
import { activityDeleted, kudosGiven } from "../../events/activity/changes.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityReprocessed } from "../../events/activity/reprocessed.ts";
import { accessTokenIssued, accessTokensRevoked } from "../../events/application/events.ts";
import type { EventData, NewEvent } from "../../events/catalogue.ts";
import { openAccessToken, pkceChallenge, sealAccessToken } from "../../events/oauth/crypto.ts";
import { type OAuthCommand, oauthDecider } from "../../events/oauth/decide.ts";
import {
  authorizationCodeRedeemed,
  authorizationCodeReplayed,
  authorizationGranted,
  refreshTokenIssued,
} from "../../events/oauth/events.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import { uploadDecider } from "../../events/upload/decide.ts";
import { uploadFailed, uploadReceived, uploadSucceeded } from "../../events/upload/events.ts";
import { given } from "../helpers/decider.ts";

// ---------------------------------------------------------------- OAuth grants

const NOW = "2026-01-01T12:00:00.000Z";
const grant = {
  grantId: "g-1",
  athleteId: 1,
  applicationId: 7,
  permissions: ["read" as const, "write" as const],
  scope: "read,activity:write",
  codeHash: "code-hash",
  redirectUri: "https://app.example/cb",
  codeChallenge: null,
  codeExpiresAt: "2026-01-01T12:10:00.000Z",
  prompted: true,
  audience: "api" as const,
};
const granted = authorizationGranted.create(grant);
const exchange = (over: Partial<Extract<OAuthCommand, { type: "exchange" }>> = {}): OAuthCommand => ({
  type: "exchange",
  athleteId: 1,
  applicationId: 7,
  codeHash: "code-hash",
  secretChecked: true,
  now: NOW,
  access: { tokenHash: "access-1", expiresAt: "2026-01-01T18:00:00.000Z" },
  refreshTokenHash: "refresh-1",
  sealedAccessToken: "sealed-1",
  ...over,
});
const exchanged = given(oauthDecider, [granted]).when(exchange()).events();

describe("OAuth grant decider: authorize, exchange", () => {
  it("a code is exchanged once for an access and a refresh token with the grant's permissions", () => {
    given(oauthDecider, []).when({ type: "grant", grant }).then([granted]);
    given(oauthDecider, [granted]).when(exchange()).then([
      authorizationCodeRedeemed.create({
        grantId: "g-1",
        codeHash: "code-hash",
        athleteId: 1,
        applicationId: 7,
        publicClient: false,
      }),
      accessTokenIssued.create({
        tokenHash: "access-1",
        athleteId: 1,
        applicationId: 7,
        scopes: ["read", "write"],
        kind: "access",
        expiresAt: "2026-01-01T18:00:00.000Z",
        grantId: "g-1",
        audience: "api",
      }),
      refreshTokenIssued.create({
        grantId: "g-1",
        athleteId: 1,
        applicationId: 7,
        refreshTokenHash: "refresh-1",
        replacesHash: null,
        permissions: ["read", "write"],
        accessTokenHash: "access-1",
        accessExpiresAt: "2026-01-01T18:00:00.000Z",
        sealedAccessToken: "sealed-1",
        publicClient: false,
      }),
    ]);
  });

  it("refuses an unknown, expired, revoked code, a wrong redirect_uri and a missing client secret", () => {
    given(oauthDecider, [granted]).when(exchange({ codeHash: "other" })).thenError("invalid", "invalid");
    given(oauthDecider, [granted]).when(exchange({ now: "2026-01-01T12:10:00.000Z" })).thenError("invalid", "invalid");
    given(oauthDecider, [
      granted,
      accessTokensRevoked.create({ athleteId: 1, applicationId: 7, reason: "deauthorize" }),
    ])
      .when(exchange()).thenError("invalid", "invalid");
    given(oauthDecider, [granted]).when(exchange({ redirectUri: "https://app.example/other" })).thenError(
      "invalid",
      "invalid",
    );
    given(oauthDecider, [granted]).when(exchange({ secretChecked: false })).thenError("invalid", "missing");
  });

  it("a code presented again revokes its grant once, then is refused", () => {
    const replayed = authorizationCodeReplayed.create({
      grantId: "g-1",
      codeHash: "code-hash",
      athleteId: 1,
      applicationId: 7,
    });
    given(oauthDecider, [granted, ...exchanged]).when(exchange()).then([replayed]);
    given(oauthDecider, [granted, ...exchanged, replayed]).when(exchange()).thenError("invalid", "invalid");
    // The grant's refresh token stopped working.
    given(oauthDecider, [granted, ...exchanged, replayed]).when(refresh()).thenError("invalid", "invalid");
  });

  it("PKCE: a code issued with a challenge needs its verifier; without the secret the client is public", () => {
    const verifier = "v".repeat(43);
    const pkce = authorizationGranted.create({ ...grant, codeChallenge: pkceChallenge(verifier) });
    given(oauthDecider, [pkce]).when(exchange({ secretChecked: false })).thenError("invalid", "missing");
    given(oauthDecider, [pkce]).when(exchange({ secretChecked: false, codeVerifier: "w".repeat(43) })).thenError(
      "invalid",
      "invalid",
    );
    const events = given(oauthDecider, [pkce]).when(exchange({ secretChecked: false, codeVerifier: verifier }))
      .events();
    expect(events.map((e) => e.type)).toEqual(["AuthorizationCodeRedeemed", "AccessTokenIssued", "RefreshTokenIssued"]);
    expect((events[2].data as EventData<typeof refreshTokenIssued>).publicClient).toBe(true);
  });
});

// ---------------------------------------------------------------- refresh, revoke

const sealedFirst = sealAccessToken("the-access-token", "the-refresh-token");
const issuedFirst: NewEvent[] = [
  granted,
  authorizationCodeRedeemed.create({
    grantId: "g-1",
    codeHash: "code-hash",
    athleteId: 1,
    applicationId: 7,
    publicClient: false,
  }),
  accessTokenIssued.create({
    tokenHash: "access-1",
    athleteId: 1,
    applicationId: 7,
    scopes: ["read", "write"],
    kind: "access",
    expiresAt: "2026-01-01T18:00:00.000Z",
    grantId: "g-1",
    audience: "api",
  }),
  refreshTokenIssued.create({
    grantId: "g-1",
    athleteId: 1,
    applicationId: 7,
    refreshTokenHash: "refresh-1",
    replacesHash: null,
    permissions: ["read", "write"],
    accessTokenHash: "access-1",
    accessExpiresAt: "2026-01-01T18:00:00.000Z",
    sealedAccessToken: sealedFirst,
    publicClient: false,
  }),
];
function refresh(over: Partial<Extract<OAuthCommand, { type: "refresh" }>> = {}): OAuthCommand {
  return {
    type: "refresh",
    athleteId: 1,
    applicationId: 7,
    refreshToken: "the-refresh-token",
    refreshTokenHash: "refresh-1",
    secretChecked: true,
    now: NOW,
    fresh: { accessToken: "fresh-access", tokenHash: "access-2", expiresAt: "2026-01-01T23:00:00.000Z" },
    next: { refreshToken: "next-refresh", refreshTokenHash: "refresh-2" },
    iv: new Uint8Array(12).fill(7),
    ...over,
  };
}

describe("OAuth grant decider: refresh, revoke, other tokens", () => {
  it("rotates the refresh token and gives the same access token back while more than an hour is left", () => {
    const events = given(oauthDecider, issuedFirst).when(refresh()).events();
    expect(events.map((e) => e.type)).toEqual(["RefreshTokenIssued"]);
    const data = events[0].data as EventData<typeof refreshTokenIssued>;
    expect(data).toMatchObject({
      replacesHash: "refresh-1",
      refreshTokenHash: "refresh-2",
      accessTokenHash: "access-1",
    });
    expect(openAccessToken(data.sealedAccessToken, "next-refresh")).toBe("the-access-token");
    // The replaced refresh token works no more.
    given(oauthDecider, [...issuedFirst, ...events]).when(refresh()).thenError("invalid", "invalid");
  });

  it("mints a new access token with an hour or less left", () => {
    const events = given(oauthDecider, issuedFirst).when(refresh({ now: "2026-01-01T17:00:00.000Z" })).events();
    expect(events.map((e) => e.type)).toEqual(["AccessTokenIssued", "RefreshTokenIssued"]);
    const data = events[1].data as EventData<typeof refreshTokenIssued>;
    expect(data.accessTokenHash).toBe("access-2");
    expect(openAccessToken(data.sealedAccessToken, "next-refresh")).toBe("fresh-access");
  });

  it("a confidential client's refresh needs its secret; a revoked pair refreshes nothing", () => {
    given(oauthDecider, issuedFirst).when(refresh({ secretChecked: false })).thenError("invalid", "missing");
    const revoked = accessTokensRevoked.create({ athleteId: 1, applicationId: 7, reason: "deauthorize" });
    given(oauthDecider, []).when({ type: "revoke", athleteId: 1, applicationId: 7, reason: "deauthorize" }).then([
      revoked,
    ]);
    given(oauthDecider, [...issuedFirst, revoked]).when(refresh()).thenError("invalid", "invalid");
  });

  it("issues plain access tokens (CLI, web app session), never public ones on a pair", () => {
    const token = {
      tokenHash: "t",
      athleteId: 1,
      applicationId: 7,
      scopes: ["read" as const],
      kind: "access" as const,
      expiresAt: null,
      grantId: null,
      audience: "api" as const,
    };
    given(oauthDecider, []).when({ type: "issueToken", token }).then([accessTokenIssued.create(token)]);
    given(oauthDecider, []).when({ type: "issueToken", token: { ...token, kind: "public" } }).thenError(
      "invalid",
      "invalid",
    );
  });
});

// ---------------------------------------------------------------- uploads

const received = {
  uploadId: 9,
  athleteId: 1,
  activityId: 5,
  fileName: "ride.fit",
  dataType: "fit" as const,
  originalSha256: "o",
  contentSha256: "c",
  externalId: "ride.fit",
  activityType: null,
  name: null,
  description: null,
  visibility: "everyone" as const,
  trainer: false,
  commute: false,
};
const succeeded = {
  uploadId: 9,
  athleteId: 1,
  activityId: 5,
  startDate: "2026-01-01T10:00:00Z",
  deviceName: null,
  contentSha256: "c",
  notes: [],
};
const failed = { uploadId: 9, athleteId: 1, error: "ride.fit: not a FIT file", duplicateOf: null };

describe("upload decider", () => {
  it("an upload is received once", () => {
    given(uploadDecider, []).when({ type: "receive", upload: received }).then([uploadReceived.create(received)]);
    given(uploadDecider, [uploadReceived.create(received)]).when({ type: "receive", upload: received }).thenError(
      "conflict",
      "already exists",
    );
  });

  it("one outcome, for the athlete and activity it was received with; a second outcome decides nothing", () => {
    given(uploadDecider, [uploadReceived.create(received)]).when({ type: "succeed", outcome: succeeded }).then([
      uploadSucceeded.create(succeeded),
    ]);
    given(uploadDecider, [uploadReceived.create(received)]).when({ type: "fail", outcome: failed }).then([
      uploadFailed.create(failed),
    ]);
    given(uploadDecider, [uploadReceived.create(received), uploadFailed.create(failed)]).when({
      type: "succeed",
      outcome: succeeded,
    }).then([]);
    given(uploadDecider, [uploadReceived.create(received), uploadSucceeded.create(succeeded)]).when({
      type: "fail",
      outcome: failed,
    }).then([]);
    given(uploadDecider, []).when({ type: "succeed", outcome: succeeded }).thenError("not_found", "invalid");
    given(uploadDecider, [uploadReceived.create(received)]).when({
      type: "succeed",
      outcome: { ...succeeded, activityId: 6 },
    }).thenError("invalid", "invalid");
    given(uploadDecider, [uploadReceived.create(received)]).when({ type: "fail", outcome: { ...failed, athleteId: 2 } })
      .thenError("invalid", "invalid");
  });
});

// ---------------------------------------------------------------- the upload's activity, reprocessing

type Recorded = EventData<typeof activityRecorded>;
const recorded = {
  activityId: 5,
  athleteId: 1,
  uploadId: 9,
  type: "Ride",
  name: "Morning ride",
} as unknown as Recorded;
const matched: EventData<typeof segmentEffortsMatched> = {
  activityId: 5,
  athleteId: 1,
  activityType: "Ride",
  visibility: "everyone" as const,
  efforts: [],
  prCount: 0,
  achievementCount: 0,
};

describe("activity decider: the upload job's recording and processors, reprocessing", () => {
  it("records an uploaded activity once (nothing when already recorded); processors append after it", () => {
    given(activityDecider, []).when({ type: "record", activity: recorded }).then([activityRecorded.create(recorded)]);
    given(activityDecider, [activityRecorded.create(recorded)]).when({ type: "record", activity: recorded }).then([]);
    const processed = [segmentEffortsMatched.create(matched)];
    given(activityDecider, [activityRecorded.create(recorded)]).when({
      type: "process",
      activityId: 5,
      events: processed,
    }).then(processed);
    given(activityDecider, []).when({ type: "process", activityId: 5, events: processed }).thenError(
      "not_found",
      "invalid",
    );
  });

  it("reprocesses an existing uploaded activity only: facts and efforts when changed", () => {
    const facts = { distance: 1 } as unknown as EventData<typeof activityReprocessed>["facts"];
    given(activityDecider, [activityRecorded.create(recorded)]).when({
      type: "reprocess",
      activityId: 5,
      facts,
      efforts: matched,
    }).then([
      activityReprocessed.create({ activityId: 5, athleteId: 1, facts }),
      segmentEffortsRematched.create(matched),
    ]);
    given(activityDecider, [activityRecorded.create(recorded)]).when({
      type: "reprocess",
      activityId: 5,
      facts: null,
      efforts: matched,
    })
      .then([segmentEffortsRematched.create(matched)]);
    given(activityDecider, [
      activityRecorded.create(recorded),
      activityDeleted.create({ activityId: 5, athleteId: 1, uploadId: 9 }),
    ])
      .when({ type: "reprocess", activityId: 5, facts, efforts: null }).thenError("not_found", "invalid");
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
    given(activityDecider, [activityCreated.create(manual), kudosGiven.create({ activityId: 5, athleteId: 2 })])
      .when({ type: "reprocess", activityId: 5, facts, efforts: null }).thenError("invalid", "not uploaded");
  });
});
