import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appliedBothWays } from "../helpers/batch-equal.ts";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { applicationsProjection } from "../../projections/applications/projection.ts";

let position = 0;
function event(type: string, data: Record<string, unknown>): StoredEvent {
  position++;
  return {
    position,
    streamId: `s-${position}`,
    streamVersion: 1,
    type,
    schemaVersion: 1,
    data,
    metadata: {},
    recordedAt: new Date(Date.UTC(2026, 0, 1) + position * 1000).toISOString(),
  } as unknown as StoredEvent;
}
const issued = (athleteId: number, kind = "access", grantId: string | null = null) =>
  event("AccessTokenIssued", {
    tokenHash: `t${position}`,
    athleteId,
    applicationId: 1,
    scopes: ["read", "write"],
    kind,
    expiresAt: kind === "access" ? "2026-01-01T06:00:00.000Z" : null,
    grantId,
    audience: position % 2 ? "api" : "mcp",
  });

describe("access tokens, applied in a batch", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());

  it("equal one by one: runs of issued tokens in one insert, each run in its place among revocations", async () => {
    const log = [
      event("ApplicationRegistered", {
        applicationId: 1,
        ownerId: 1,
        name: "App",
        website: null,
        description: null,
        callbackDomain: "example.com",
        clientSecretHash: "h",
        internal: false,
        kudosEnabled: true,
        challengesEnabled: false,
      }),
      issued(1, "public"),
      issued(2),
      issued(3, "access", "g1"),
      event("AccessTokensRevoked", { athleteId: 2, applicationId: 1, reason: "deauthorize" }),
      // Issued after the revocation: stays valid.
      issued(2),
      issued(3, "access", "g1"),
      event("AuthorizationCodeReplayed", { athleteId: 3, applicationId: 1, codeHash: "c", grantId: "g1" }),
      issued(3, "access", "g1"),
      event("AccessTokenRevoked", { tokenHash: "t1" }),
      issued(4),
    ];
    const { single, batched } = await appliedBothWays(
      db,
      applicationsProjection,
      log,
      "select * from access_tokens order by token_hash",
    );
    expect(single.length).toBe(7);
    expect(single.filter((r) => (r as { revoked: boolean }).revoked).length).toBe(4);
    expect(batched).toEqual(single);
  });
});
