import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../events/catalogue.ts";
import { fold } from "../../events/decider.ts";
import { type ClubCommand, clubDecider } from "../../events/club/decide.ts";
import { clubCreated, clubJoined, clubMemberInvited, clubMembershipRequested, clubAdminPromoted } from "../../events/club/events.ts";
import { type ChallengeCommand, challengeDecider } from "../../events/challenge/decide.ts";
import { challengeCreated, challengeJoined } from "../../events/challenge/events.ts";

const OWNER = 1;
const created = (priv: boolean) => clubCreated.create({
  clubId: 9, ownerId: OWNER, name: "C", description: null, clubType: "casual_club", sportType: "cycling",
  city: null, state: null, country: null, private: priv, verified: false, url: "c",
});
const club = (given: NewEvent[], when: ClubCommand) => clubDecider.decide(when, fold(clubDecider, given));
const types = (events: NewEvent[]) => events.map((e) => e.type);
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const d = e as { kind: string; code: string };
    return `${d.kind}:${d.code}`;
  }
  return "accepted";
};

describe("club decider (given events / when command / then events or error)", () => {
  it("join: public → ClubJoined; private → requested; private and invited → ClubJoined; member → nothing", () => {
    expect(types(club([created(false)], { type: "join", athleteId: 2 }))).toEqual(["ClubJoined"]);
    expect(types(club([created(true)], { type: "join", athleteId: 2 }))).toEqual(["ClubMembershipRequested"]);
    expect(types(club([created(true), clubMemberInvited.create({ clubId: 9, athleteId: 2, invitedBy: null })], { type: "join", athleteId: 2 }))).toEqual(["ClubJoined"]);
    expect(club([created(false), clubJoined.create({ clubId: 9, athleteId: 2 })], { type: "join", athleteId: 2 })).toEqual([]);
    expect(club([created(true), clubMembershipRequested.create({ clubId: 9, athleteId: 2 })], { type: "join", athleteId: 2 })).toEqual([]);
    expect(refusal(() => club([], { type: "join", athleteId: 2 }))).toBe("not_found:invalid");
  });

  it("approve/decline: admin only, private club only, pending target only", () => {
    const pending = [created(true), clubMembershipRequested.create({ clubId: 9, athleteId: 2 })];
    expect(types(club(pending, { type: "approve", callerId: OWNER, athleteId: 2 }))).toEqual(["ClubMembershipApproved"]);
    expect(types(club(pending, { type: "decline", callerId: OWNER, athleteId: 2 }))).toEqual(["ClubMembershipDeclined"]);
    expect(refusal(() => club(pending, { type: "approve", callerId: 2, athleteId: 2 }))).toBe("forbidden:not admin");
    expect(refusal(() => club(pending, { type: "approve", callerId: OWNER, athleteId: 3 }))).toBe("not_found:no request");
    expect(refusal(() => club([created(false)], { type: "decline", callerId: OWNER, athleteId: 3 }))).toBe("invalid:not private");
  });

  it("leave, promote, demote", () => {
    const member = [created(false), clubJoined.create({ clubId: 9, athleteId: 2 })];
    expect(types(club(member, { type: "leave", athleteId: 2 }))).toEqual(["ClubLeft"]);
    expect(club(member, { type: "leave", athleteId: 3 })).toEqual([]);
    expect(refusal(() => club(member, { type: "leave", athleteId: OWNER }))).toBe("forbidden:owner");
    expect(types(club(member, { type: "promote", callerId: OWNER, athleteId: 2 }))).toEqual(["ClubAdminPromoted"]);
    expect(refusal(() => club(member, { type: "promote", callerId: 2, athleteId: 2 }))).toBe("forbidden:not admin");
    expect(refusal(() => club(member, { type: "promote", callerId: OWNER, athleteId: 3 }))).toBe("invalid:not a member");
    const admin = [...member, clubAdminPromoted.create({ clubId: 9, athleteId: 2, promotedBy: OWNER })];
    expect(club(admin, { type: "promote", callerId: OWNER, athleteId: 2 })).toEqual([]);
    expect(types(club(admin, { type: "demote", callerId: 2, athleteId: 2 }))).toEqual(["ClubAdminDemoted"]);
    expect(refusal(() => club(admin, { type: "demote", callerId: 2, athleteId: OWNER }))).toBe("forbidden:owner");
    expect(club(member, { type: "demote", callerId: OWNER, athleteId: 2 })).toEqual([]);
  });
});

describe("challenge decider", () => {
  const base = {
    challengeId: 5, name: "X", type: "CumulativeChallenge" as const, dimension: "distance" as const, goal: 1, startDate: "2024-01-01",
    endDate: "2024-01-31", activityType: null, segmentId: null, description: "", mobileDescription: "", additionalInfo: "",
    rules: "", prizes: "", teaser: "", url: "x", logoUrl: "", color: "", socialHashtag: "",
  };
  const decide = (given: NewEvent[], when: ChallengeCommand) => challengeDecider.decide(when, fold(challengeDecider, given));
  it("join, join again, leave, leave again; external challenges refuse joins", () => {
    const open = [challengeCreated.create({ ...base, externalUrl: null })];
    expect(types(decide(open, { type: "join", athleteId: 2 }))).toEqual(["ChallengeJoined"]);
    const joined = [...open, challengeJoined.create({ challengeId: 5, athleteId: 2 })];
    expect(decide(joined, { type: "join", athleteId: 2 })).toEqual([]);
    expect(types(decide(joined, { type: "leave", athleteId: 2 }))).toEqual(["ChallengeLeft"]);
    expect(decide(open, { type: "leave", athleteId: 2 })).toEqual([]);
    const external = [challengeCreated.create({ ...base, externalUrl: "https://x.example" })];
    expect(refusal(() => decide(external, { type: "join", athleteId: 2 }))).toBe("forbidden:join externally");
  });
});
