import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../events/catalogue.ts";
import { DomainError, fold } from "../../events/decider.ts";
import { pushSubscriptionDecider } from "../../events/push-subscription/decide.ts";
import { pushSubscriptionCreated, pushSubscriptionDeleted } from "../../events/push-subscription/events.ts";
import { activityAspect, webhookBody } from "../../server/webhooks/payload.ts";
import { signBody, signingKey, verifySignature } from "../../server/webhooks/signature.ts";
import { callbackUrlAllowed } from "../../server/webhooks/handshake.ts";

const created = (subscriptionId: number) =>
  pushSubscriptionCreated.create({ subscriptionId, applicationId: 7, callbackUrl: "http://127.0.0.1/cb" });
const deleted = (subscriptionId: number) => pushSubscriptionDeleted.create({ subscriptionId, applicationId: 7 });

function when(given: NewEvent[], command: Parameters<typeof pushSubscriptionDecider.decide>[0]) {
  return pushSubscriptionDecider.decide(command, fold(pushSubscriptionDecider, given));
}

function refusal(fn: () => unknown): Pick<DomainError, "kind" | "resource" | "field" | "code"> {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) {
      return { kind: error.kind, resource: error.resource, field: error.field, code: error.code };
    }
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("push subscription decider", () => {
  it("creates the first subscription, refuses a second, allows one again after a delete", () => {
    expect(when([], { type: "create", subscriptionId: 1, applicationId: 7, callbackUrl: "http://127.0.0.1/cb" }))
      .toEqual([created(1)]);
    expect(
      refusal(() =>
        when([created(1)], { type: "create", subscriptionId: 2, applicationId: 7, callbackUrl: "http://x" })
      ),
    )
      .toEqual({ kind: "invalid", resource: "PushSubscription", field: "", code: "already exists" });
    expect(
      when([created(1), deleted(1)], {
        type: "create",
        subscriptionId: 2,
        applicationId: 7,
        callbackUrl: "http://127.0.0.1/cb",
      }),
    ).toEqual([created(2)]);
  });

  it("deletes only the current subscription", () => {
    expect(when([created(1)], { type: "delete", subscriptionId: 1, applicationId: 7 })).toEqual([deleted(1)]);
    expect(refusal(() => when([created(1), deleted(1)], { type: "delete", subscriptionId: 1, applicationId: 7 })).kind)
      .toBe("not_found");
    expect(refusal(() => when([created(1)], { type: "delete", subscriptionId: 9, applicationId: 7 })).kind).toBe(
      "not_found",
    );
  });
});

describe("what an application sees of an activity change", () => {
  const open = { name: "Ride", type: "Ride", visibility: "everyone" as const };
  const closed = { ...open, visibility: "only_me" as const };
  const followers = { ...open, visibility: "followers_only" as const };
  it("with view_private: creates, deletes and every title/type/privacy change", () => {
    expect(activityAspect(null, closed, true)).toEqual({ aspect: "create", updates: {} });
    expect(activityAspect(open, { ...closed, name: "X" }, true)).toEqual({
      aspect: "update",
      updates: { title: "X", private: "true" },
    });
    expect(activityAspect(closed, null, true)).toEqual({ aspect: "delete", updates: {} });
    expect(activityAspect(open, open, true)).toBeNull();
  });
  it("without view_private: private activities do not exist", () => {
    expect(activityAspect(null, closed, false)).toBeNull();
    expect(activityAspect(open, closed, false)).toEqual({ aspect: "delete", updates: {} });
    expect(activityAspect(closed, open, false)).toEqual({ aspect: "create", updates: {} });
    expect(activityAspect(closed, { ...closed, type: "Run" }, false)).toBeNull();
    expect(activityAspect(open, { ...open, type: "Run" }, false)).toEqual({
      aspect: "update",
      updates: { type: "Run" },
    });
    expect(activityAspect(closed, null, false)).toBeNull();
  });
  it("followers-only is the owner's to see with any scope; only the only-me move is a private update", () => {
    expect(activityAspect(null, followers, false)).toEqual({ aspect: "create", updates: {} });
    expect(activityAspect(open, followers, false)).toBeNull();
    expect(activityAspect(open, followers, true)).toBeNull();
    expect(activityAspect(followers, closed, false)).toEqual({ aspect: "delete", updates: {} });
    expect(activityAspect(followers, closed, true)).toEqual({ aspect: "update", updates: { private: "true" } });
    expect(activityAspect(closed, followers, true)).toEqual({ aspect: "update", updates: { private: "false" } });
  });
});

describe("signature", () => {
  it("matches the README's worked example", () => {
    const secret = "0123456789abcdef0123456789abcdef01234567";
    const body = webhookBody({
      aspect_type: "update",
      event_time: 1516126040,
      object_id: 1360128428,
      object_type: "activity",
      owner_id: 134815,
      subscription_id: 120475,
      updates: { title: "Messy" },
    });
    expect(body).toBe(
      '{"aspect_type":"update","event_time":1516126040,"object_id":1360128428,"object_type":"activity","owner_id":134815,"subscription_id":120475,"updates":{"title":"Messy"}}',
    );
    expect(signingKey(secret)).toBe("deb87fabd17715bb31ad4cf4ffb9494eeb15f8d33d85b031a301c64ab3417eaa");
    expect(signBody(signingKey(secret), body)).toBe(
      "sha256=0033ebccb3a8417bb7e86e5f5e6f055bbf5f99c160d4f595c8dc6b6cd1f09170",
    );
    expect(verifySignature(secret, body, "sha256=0033ebccb3a8417bb7e86e5f5e6f055bbf5f99c160d4f595c8dc6b6cd1f09170"))
      .toBe(true);
    expect(
      verifySignature(secret, `${body} `, "sha256=0033ebccb3a8417bb7e86e5f5e6f055bbf5f99c160d4f595c8dc6b6cd1f09170"),
    ).toBe(false);
    expect(verifySignature("other", body, "sha256=0033ebccb3a8417bb7e86e5f5e6f055bbf5f99c160d4f595c8dc6b6cd1f09170"))
      .toBe(false);
    expect(verifySignature(secret, body, null)).toBe(false);
  });
});

describe("callback URLs", () => {
  it("accepts http(s) including loopback, refuses other schemes, credentials, fragments and > 255 characters", () => {
    expect(callbackUrlAllowed("http://127.0.0.1:3000/webhook")).toBe(true);
    expect(callbackUrlAllowed("https://app.example/strava?x=1")).toBe(true);
    expect(callbackUrlAllowed("file:///etc/passwd")).toBe(false);
    expect(callbackUrlAllowed("http://user:pw@app.example/")).toBe(false);
    expect(callbackUrlAllowed("http://app.example/#frag")).toBe(false);
    expect(callbackUrlAllowed("not a url")).toBe(false);
    expect(callbackUrlAllowed(`https://app.example/${"a".repeat(240)}`)).toBe(false);
  });
});
