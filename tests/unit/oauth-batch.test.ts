import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appliedBothWays } from "../helpers/batch-equal.ts";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { authorizationStream } from "../../events/application/events.ts";
import type { StoredEvent } from "../../events/index.ts";
import { oauthProjection } from "../../projections/oauth/projection.ts";

let position = 0;
function event(type: string, data: Record<string, unknown>, streamId?: string): StoredEvent {
  position++;
  return {
    position,
    streamId: streamId ?? authorizationStream(data.athleteId as number, data.applicationId as number),
    streamVersion: position,
    type,
    schemaVersion: 1,
    data,
    metadata: {},
    recordedAt: new Date(Date.UTC(2026, 0, 1) + position * 1000).toISOString(),
  } as unknown as StoredEvent;
}
const issued = (athleteId: number, applicationId: number, scopes: string[], kind = "access", streamId?: string) =>
  event("AccessTokenIssued", {
    tokenHash: `t${position}`,
    athleteId,
    applicationId,
    scopes,
    kind,
    expiresAt: null,
    grantId: null,
    audience: "api",
  }, streamId);
const granted = (athleteId: number, applicationId: number, permissions: string[], scope: string) =>
  event("AuthorizationGranted", {
    codeHash: `c${position}`,
    grantId: `g${position}`,
    athleteId,
    applicationId,
    permissions,
    scope,
    redirectUri: "https://example.com/cb",
    codeChallenge: null,
    audience: "api",
    codeExpiresAt: "2026-01-01T00:10:00.000Z",
  });
const revoked = (athleteId: number, applicationId: number) =>
  event("AccessTokensRevoked", { athleteId, applicationId, reason: "deauthorize" });

describe("OAuth authorizations, applied in a batch", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());

  it("equal one by one: runs of issued tokens folded per pair, each run in its place among grants and revocations", async () => {
    const log = [
      granted(1, 1, ["read", "activity:read"], "read,activity:read"),
      issued(1, 1, ["write"]),
      issued(2, 1, ["read"]),
      issued(2, 1, ["view_private", "read"]),
      // The application's public token (its own stream) and a non-access kind change nothing.
      issued(3, 1, ["read"], "public", "application-1"),
      issued(3, 2, ["read"], "public"),
      revoked(1, 1),
      // Authorized again after the revocation: a new authorized_at, the permissions from scratch.
      issued(1, 1, ["read"]),
      issued(2, 1, ["write"]),
      granted(2, 1, ["read"], "read,read"),
      issued(2, 1, ["read"]),
      issued(3, 2, ["read"], "public"),
    ];
    const { single, batched } = await appliedBothWays(
      db,
      oauthProjection,
      log,
      "select * from oauth_authorizations order by athlete_id, application_id",
    );
    expect(single.length).toBe(3);
    expect(single[0]).toMatchObject({ authorized: true, permissions: "read" });
    // Widened across runs: the first run's scopes stay.
    expect(single[1]).toMatchObject({ authorized: true, permissions: "read,view_private,write", scope: "read" });
    expect(batched).toEqual(single);
  });
});
