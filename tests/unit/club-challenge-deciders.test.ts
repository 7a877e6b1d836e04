import { describe, expect, it } from "vitest";
import { checkNewClub, clubDecider, type NewClubRequest } from "../../events/club/decide.ts";
import { DomainError } from "../../events/decider.ts";
import {
  clubAdminPromoted,
  clubCreated,
  clubJoined,
  clubMemberInvited,
  clubMembershipRequested,
} from "../../events/club/events.ts";
import { challengeDecider } from "../../events/challenge/decide.ts";
import { challengeCreated, challengeJoined } from "../../events/challenge/events.ts";
import { athleteSettingsDecider } from "../../events/club/settings.ts";
import { athleteEnhancedPrivacyChanged } from "../../events/club/events.ts";
import { given } from "../helpers/decider.ts";

const OWNER = 1;
const created = (priv: boolean) =>
  clubCreated.create({
    clubId: 9,
    ownerId: OWNER,
    name: "C",
    description: null,
    clubType: "casual_club",
    sportType: "cycling",
    city: null,
    state: null,
    country: null,
    private: priv,
    verified: false,
    url: "c",
  });

describe("club decider (given events / when command / then events or error)", () => {
  it("join: public → ClubJoined; private → requested; private and invited → ClubJoined; member → nothing", () => {
    given(clubDecider, [created(false)]).when({ type: "join", athleteId: 2 }).thenTypes(["ClubJoined"]);
    given(clubDecider, [created(true)]).when({ type: "join", athleteId: 2 }).thenTypes(["ClubMembershipRequested"]);
    given(clubDecider, [created(true), clubMemberInvited.create({ clubId: 9, athleteId: 2, invitedBy: null })]).when({
      type: "join",
      athleteId: 2,
    }).thenTypes(["ClubJoined"]);
    given(clubDecider, [created(false), clubJoined.create({ clubId: 9, athleteId: 2 })]).when({
      type: "join",
      athleteId: 2,
    }).then([]);
    given(clubDecider, [created(true), clubMembershipRequested.create({ clubId: 9, athleteId: 2 })]).when({
      type: "join",
      athleteId: 2,
    }).then([]);
    given(clubDecider, []).when({ type: "join", athleteId: 2 }).thenError("not_found", "invalid");
  });

  it("approve/decline: admin only, private club only, pending target only", () => {
    const pending = [created(true), clubMembershipRequested.create({ clubId: 9, athleteId: 2 })];
    given(clubDecider, pending).when({ type: "approve", callerId: OWNER, athleteId: 2 }).thenTypes([
      "ClubMembershipApproved",
    ]);
    given(clubDecider, pending).when({ type: "decline", callerId: OWNER, athleteId: 2 }).thenTypes([
      "ClubMembershipDeclined",
    ]);
    given(clubDecider, pending).when({ type: "approve", callerId: 2, athleteId: 2 }).thenError(
      "forbidden",
      "not admin",
    );
    given(clubDecider, pending).when({ type: "approve", callerId: OWNER, athleteId: 3 }).thenError(
      "not_found",
      "no request",
    );
    given(clubDecider, [created(false)]).when({ type: "decline", callerId: OWNER, athleteId: 3 }).thenError(
      "invalid",
      "not private",
    );
  });

  it("leave, promote, demote", () => {
    const member = [created(false), clubJoined.create({ clubId: 9, athleteId: 2 })];
    given(clubDecider, member).when({ type: "leave", athleteId: 2 }).thenTypes(["ClubLeft"]);
    given(clubDecider, member).when({ type: "leave", athleteId: 3 }).then([]);
    given(clubDecider, member).when({ type: "leave", athleteId: OWNER }).thenError("forbidden", "owner");
    given(clubDecider, member).when({ type: "promote", callerId: OWNER, athleteId: 2 }).thenTypes([
      "ClubAdminPromoted",
    ]);
    given(clubDecider, member).when({ type: "promote", callerId: 2, athleteId: 2 }).thenError("forbidden", "not admin");
    given(clubDecider, member).when({ type: "promote", callerId: OWNER, athleteId: 3 }).thenError(
      "invalid",
      "not a member",
    );
    const admin = [...member, clubAdminPromoted.create({ clubId: 9, athleteId: 2, promotedBy: OWNER })];
    given(clubDecider, admin).when({ type: "promote", callerId: OWNER, athleteId: 2 }).then([]);
    given(clubDecider, admin).when({ type: "demote", callerId: 2, athleteId: 2 }).thenTypes(["ClubAdminDemoted"]);
    given(clubDecider, admin).when({ type: "demote", callerId: 2, athleteId: OWNER }).thenError("forbidden", "owner");
    given(clubDecider, member).when({ type: "demote", callerId: OWNER, athleteId: 2 }).then([]);
  });
});

describe("club decider: creating a club", () => {
  const create = (request: NewClubRequest) => ({
    type: "create" as const,
    clubId: 9,
    ownerId: OWNER,
    url: "c",
    request,
  });
  /** The field and code a refused request names (the 400 triple POST /v3/clubs answers). */
  function refusal(request: NewClubRequest): [string, string] | undefined {
    try {
      checkNewClub(request);
    } catch (error) {
      if (error instanceof DomainError) return [error.field, error.code];
      throw error;
    }
    return undefined;
  }

  it("records ClubCreated with the trimmed name, the defaults (casual_club, cycling, public) and the owner", () => {
    given(clubDecider, []).when(create({ name: "  C  ", city: " ", description: "" })).then([created(false)]);
    given(clubDecider, [created(false)]).when(create({ name: "C" })).thenError("conflict", "already exists");
  });

  it("checks every field, whoever asks: the API's triples (missing when not given or empty, else invalid)", () => {
    expect(refusal({})).toEqual(["name", "missing"]);
    expect(refusal({ name: "" })).toEqual(["name", "missing"]);
    expect(refusal({ name: "   " })).toEqual(["name", "invalid"]);
    expect(refusal({ name: "x".repeat(101) })).toEqual(["name", "invalid"]);
    expect(refusal({ name: ` ${"x".repeat(100)} ` })).toBeUndefined();
    expect(refusal({ name: "C", description: "d".repeat(2001) })).toEqual(["description", "invalid"]);
    expect(refusal({ name: "C", clubType: "guild" })).toEqual(["club_type", "invalid"]);
    expect(refusal({ name: "C", clubType: "" })).toEqual(["club_type", "missing"]);
    expect(refusal({ name: "C", sportType: "chess" })).toEqual(["sport_type", "invalid"]);
    for (const field of ["city", "state", "country"] as const) {
      expect(refusal({ name: "C", [field]: "p".repeat(101) })).toEqual([field, "invalid"]);
    }
    // The first broken field in the form's order is named first, and every other one after it.
    expect(refusal({ name: "", sportType: "chess" })).toEqual(["name", "missing"]);
    given(clubDecider, []).when(create({ name: "C", sportType: "chess" })).thenError("invalid", "invalid");
  });

  it("names every broken field at once (one 400 triple each, as the API's input parsing does)", () => {
    let refused: unknown;
    try {
      checkNewClub({ name: "", clubType: "guild", sportType: "chess", city: "p".repeat(101) });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).problems).toEqual([
      { field: "name", code: "missing" },
      { field: "club_type", code: "invalid" },
      { field: "sport_type", code: "invalid" },
      { field: "city", code: "invalid" },
    ]);
  });
});

describe("challenge decider", () => {
  const base = {
    challengeId: 5,
    name: "X",
    type: "CumulativeChallenge" as const,
    dimension: "distance" as const,
    goal: 1,
    startDate: "2024-01-01",
    endDate: "2024-01-31",
    activityType: null,
    segmentId: null,
    description: "",
    mobileDescription: "",
    additionalInfo: "",
    rules: "",
    prizes: "",
    teaser: "",
    url: "x",
    logoUrl: "",
    color: "",
    socialHashtag: "",
  };
  it("join, join again, leave, leave again; external challenges refuse joins", () => {
    const open = [challengeCreated.create({ ...base, externalUrl: null })];
    given(challengeDecider, open).when({ type: "join", athleteId: 2 }).thenTypes(["ChallengeJoined"]);
    const joined = [...open, challengeJoined.create({ challengeId: 5, athleteId: 2 })];
    given(challengeDecider, joined).when({ type: "join", athleteId: 2 }).then([]);
    given(challengeDecider, joined).when({ type: "leave", athleteId: 2 }).thenTypes(["ChallengeLeft"]);
    given(challengeDecider, open).when({ type: "leave", athleteId: 2 }).then([]);
    const external = [challengeCreated.create({ ...base, externalUrl: "https://x.example" })];
    given(challengeDecider, external).when({ type: "join", athleteId: 2 }).thenError("forbidden", "join externally");
  });
});

describe("athlete settings decider", () => {
  it("records each Enhanced Privacy setting", () => {
    given(athleteSettingsDecider, []).when({ type: "setEnhancedPrivacy", athleteId: 2, enhancedPrivacy: true })
      .then([athleteEnhancedPrivacyChanged.create({ athleteId: 2, enhancedPrivacy: true })]);
    given(athleteSettingsDecider, [athleteEnhancedPrivacyChanged.create({ athleteId: 2, enhancedPrivacy: true })])
      .when({ type: "setEnhancedPrivacy", athleteId: 2, enhancedPrivacy: false })
      .then([athleteEnhancedPrivacyChanged.create({ athleteId: 2, enhancedPrivacy: false })]);
  });
});
