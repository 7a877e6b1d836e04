import { DomainError, handleCommand } from "../../events/decider.ts";
import { athleteSettingsDecider } from "../../events/club/settings.ts";
import { clubUrlTaken } from "../../projections/clubs/queries.ts";
import { checkNewClub, type ClubCommand, clubDecider, type NewClubRequest } from "../../events/club/decide.ts";
import { athleteSettingsStream, clubStream } from "../../events/club/events.ts";
import { type Actor, appendOptions } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";

/** A new club as parsed by its caller (the club decider's rules check it) and its owner. */
export interface NewClub extends NewClubRequest {
  ownerId: number;
}

/** A vanity slug from the name: lower-case words joined by dashes ("Ride London" → "ride-london"). */
export function slugOf(name: string): string {
  const slug = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return slug || "club";
}

/**
 * Creates a club (CLI, POST /v3/clubs, demo): its owner becomes its first member and admin. The
 * decider's rules are asked first, so a refused club reads nothing and draws no id; what needs a
 * read is checked here: the owner exists, and a taken slug gets the club's id appended.
 */
export async function createClub(platform: Platform, input: NewClub, actor: Actor): Promise<number> {
  const { ownerId, ...request } = input;
  const { name } = checkNewClub(request);
  if (!(await findAthlete(platform.db, ownerId))) {
    throw new DomainError("not_found", "Athlete", "owner_id", "invalid", "no such athlete");
  }
  const clubId = await nextId(platform.db, "club");
  let url = slugOf(name);
  if (await clubUrlTaken(platform.db, url)) url = `${url}-${clubId}`;
  await handleCommand(platform.store, clubStream(clubId), clubDecider, {
    type: "create",
    clubId,
    ownerId,
    url,
    request,
  }, appendOptions(actor));
  return clubId;
}

/** Runs one membership move on a club's stream; answers whether anything changed. */
async function moveMember(
  platform: Platform,
  clubId: number,
  command: Exclude<ClubCommand, { type: "create" }>,
  actor: Actor,
): Promise<boolean> {
  const { events } = await handleCommand(
    platform.store,
    clubStream(clubId),
    clubDecider,
    command,
    appendOptions(actor),
  );
  return events.length > 0;
}

/** Invites an athlete (an operator: `invitedBy` null): their next join makes them a member, even of a private club. */
export function inviteToClub(
  platform: Platform,
  clubId: number,
  athleteId: number,
  invitedBy: number | null,
  actor: Actor,
) {
  return moveMember(platform, clubId, { type: "invite", athleteId, invitedBy }, actor);
}

/** Joins a club: a member at once (public club, or invited), else a pending request. */
export function joinClub(platform: Platform, clubId: number, athleteId: number, actor: Actor) {
  return moveMember(platform, clubId, { type: "join", athleteId }, actor);
}

/** Leaves a club (or withdraws a pending request); the owner cannot. */
export function leaveClub(platform: Platform, clubId: number, athleteId: number, actor: Actor) {
  return moveMember(platform, clubId, { type: "leave", athleteId }, actor);
}

/** A club admin (`callerId`) accepts a pending request to a private club. */
export function approveMembership(
  platform: Platform,
  clubId: number,
  callerId: number,
  athleteId: number,
  actor: Actor,
) {
  return moveMember(platform, clubId, { type: "approve", callerId, athleteId }, actor);
}

/** A club admin (`callerId`) declines a pending request to a private club. */
export function declineMembership(
  platform: Platform,
  clubId: number,
  callerId: number,
  athleteId: number,
  actor: Actor,
) {
  return moveMember(platform, clubId, { type: "decline", callerId, athleteId }, actor);
}

/** A club admin (`callerId`) makes a member an admin. */
export function promoteAdmin(platform: Platform, clubId: number, callerId: number, athleteId: number, actor: Actor) {
  return moveMember(platform, clubId, { type: "promote", callerId, athleteId }, actor);
}

/** A club admin (`callerId`) makes an admin a plain member (never the owner). */
export function demoteAdmin(platform: Platform, clubId: number, callerId: number, athleteId: number, actor: Actor) {
  return moveMember(platform, clubId, { type: "demote", callerId, athleteId }, actor);
}

/** Turns an athlete's Enhanced Privacy on or off (hidden from non-members' club member lists). */
export async function setEnhancedPrivacy(
  platform: Platform,
  athleteId: number,
  enhancedPrivacy: boolean,
  actor: Actor,
) {
  if (!(await findAthlete(platform.db, athleteId))) {
    throw new DomainError("not_found", "Athlete", "id", "invalid", "no such athlete");
  }
  await handleCommand(platform.store, athleteSettingsStream(athleteId), athleteSettingsDecider, {
    type: "setEnhancedPrivacy",
    athleteId,
    enhancedPrivacy,
  }, appendOptions(actor));
}
