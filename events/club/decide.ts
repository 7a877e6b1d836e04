import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import {
  CLUB_SPORT_TYPES,
  CLUB_TYPES,
  clubAdminDemoted,
  clubAdminPromoted,
  clubCreated,
  type ClubEvent,
  clubJoined,
  clubLeft,
  clubMemberInvited,
  clubMembershipApproved,
  clubMembershipDeclined,
  clubMembershipRequested,
} from "./events.ts";

export type ClubFacts = Omit<EventData<typeof clubCreated>, "clubId">;

/**
 * A new club as asked for (POST /v3/clubs, `club create`, the demo): parsed from the request, not
 * yet checked — `checkNewClub` holds the rules, whoever asks.
 */
export interface NewClubRequest {
  name?: string;
  description?: string | null;
  clubType?: string;
  sportType?: string;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  private?: boolean;
}

/** The facts a new club's request decides (the owner, the slug and `verified` come from elsewhere). */
export type NewClubFacts = Omit<ClubFacts, "ownerId" | "url" | "verified">;

export interface ClubMember {
  membership: "member" | "pending";
  admin: boolean;
}

export interface ClubState {
  exists: boolean;
  clubId: number;
  ownerId: number;
  private: boolean;
  members: Map<number, ClubMember>;
  /** Invited athletes who have not joined yet. */
  invited: Set<number>;
}

export type ClubCommand =
  | { type: "create"; clubId: number; ownerId: number; url: string; request: NewClubRequest }
  | { type: "invite"; athleteId: number; invitedBy: number | null }
  | { type: "join"; athleteId: number }
  | { type: "leave"; athleteId: number }
  | { type: "approve"; callerId: number; athleteId: number }
  | { type: "decline"; callerId: number; athleteId: number }
  | { type: "promote"; callerId: number; athleteId: number }
  | { type: "demote"; callerId: number; athleteId: number };

const refuse = (kind: DomainError["kind"], field: string, code: string, message: string) =>
  new DomainError(kind, "Club", field, code, message);

/** Longest name, place (city, state, country) and description of a club. */
export const CLUB_NAME_MAX = 100;
export const CLUB_PLACE_MAX = 100;
export const CLUB_DESCRIPTION_MAX = 2000;

/**
 * Refuses a bad field as the API's input parsing does: "missing" when not given or empty, else
 * "invalid" (so POST /v3/clubs answers the same triples whichever layer refuses).
 */
const badField = (field: string, value: string | null | undefined, message: string) =>
  refuse("invalid", field, value === undefined || value === null || value === "" ? "missing" : "invalid", message);

function oneOf<T extends string>(values: readonly T[], field: string, value: string | undefined, otherwise: T): T {
  if (value === undefined) return otherwise;
  const found = values.find((v) => v === value);
  if (!found) throw badField(field, value, `${field} is one of ${values.join(", ")}`);
  return found;
}

/** A place (city, state, country): trimmed, empty as null, at most CLUB_PLACE_MAX characters. */
function place(field: string, value: string | null | undefined): string | null {
  if ((value ?? "").length > CLUB_PLACE_MAX) {
    throw badField(field, value, `${field} has at most ${CLUB_PLACE_MAX} characters`);
  }
  return value?.trim() || null;
}

/**
 * The rules of a new club: a name (trimmed, 1–100 characters), a description of at most 2000,
 * club_type and sport_type from their lists (casual_club and cycling when not given), places of at
 * most 100. Answers the facts, or refuses once naming every broken field (in the order listed).
 */
export function checkNewClub(request: NewClubRequest): NewClubFacts {
  const refused: DomainError[] = [];
  const check = <T>(rule: () => T, fallback: T): T => {
    try {
      return rule();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refused.push(error);
      return fallback;
    }
  };
  const name = check(() => {
    const trimmed = request.name?.trim() ?? "";
    if (!trimmed || trimmed.length > CLUB_NAME_MAX) {
      throw badField("name", request.name, `a name of 1 to ${CLUB_NAME_MAX} characters`);
    }
    return trimmed;
  }, "");
  const description = check(() => {
    const text = request.description ?? null;
    if ((text ?? "").length > CLUB_DESCRIPTION_MAX) {
      throw badField("description", text, `description has at most ${CLUB_DESCRIPTION_MAX} characters`);
    }
    return text?.trim() || null;
  }, null);
  const facts: NewClubFacts = {
    name,
    description,
    clubType: check(() => oneOf(CLUB_TYPES, "club_type", request.clubType, "casual_club"), "casual_club"),
    sportType: check(() => oneOf(CLUB_SPORT_TYPES, "sport_type", request.sportType, "cycling"), "cycling"),
    city: check(() => place("city", request.city), null),
    state: check(() => place("state", request.state), null),
    country: check(() => place("country", request.country), null),
    private: request.private ?? false,
  };
  if (refused.length > 0) throw DomainError.all(refused);
  return facts;
}

function requireAdmin(state: ClubState, callerId: number): void {
  if (!state.members.get(callerId)?.admin || state.members.get(callerId)?.membership !== "member") {
    throw refuse("forbidden", "athlete", "not admin", "only a club admin may do this");
  }
}

function requirePending(state: ClubState, callerId: number, athleteId: number): void {
  requireAdmin(state, callerId);
  if (!state.private) {
    throw refuse("invalid", "private", "not private", "the club is public: there are no requests to answer");
  }
  if (state.members.get(athleteId)?.membership !== "pending") {
    throw refuse("not_found", "athlete_id", "no request", "the athlete has not requested membership");
  }
}

function evolve(state: ClubState, event: ClubEvent): ClubState {
  const members = new Map(state.members);
  const invited = new Set(state.invited);
  switch (event.type) {
    case clubCreated.type: {
      const c = event.data;
      members.set(c.ownerId, { membership: "member", admin: true });
      return { exists: true, clubId: c.clubId, ownerId: c.ownerId, private: c.private, members, invited };
    }
    case clubMemberInvited.type:
      invited.add(event.data.athleteId);
      break;
    case clubJoined.type:
    case clubMembershipApproved.type:
      members.set(event.data.athleteId, { membership: "member", admin: false });
      invited.delete(event.data.athleteId);
      break;
    case clubMembershipRequested.type:
      members.set(event.data.athleteId, { membership: "pending", admin: false });
      break;
    case clubMembershipDeclined.type:
    case clubLeft.type:
      members.delete(event.data.athleteId);
      break;
    case clubAdminPromoted.type:
      members.set(event.data.athleteId, { membership: "member", admin: true });
      break;
    case clubAdminDemoted.type:
      members.set(event.data.athleteId, { membership: "member", admin: false });
      break;
    default:
      return state;
  }
  return { ...state, members, invited };
}

/**
 * The club membership state machine, as the spec's table states it:
 * not a member → join → member (public club, or invited) | pending (private, not invited);
 * pending → approve (admin, private club) → member; pending → decline (admin) → not a member;
 * member → leave → not a member; member → promote (admin) → admin; admin → demote (admin; never the
 * owner) → member. Repeating a move that is already true decides nothing (idempotent).
 */
export const clubDecider: Decider<ClubState, ClubCommand, ClubEvent> = {
  initialState: () => ({
    exists: false,
    clubId: 0,
    ownerId: 0,
    private: false,
    members: new Map(),
    invited: new Set(),
  }),
  evolve,
  decide(command, state) {
    if (command.type === "create") {
      const facts = checkNewClub(command.request);
      if (state.exists) throw refuse("conflict", "id", "already exists", "the club exists");
      return [
        clubCreated.create({
          clubId: command.clubId,
          ownerId: command.ownerId,
          ...facts,
          verified: false,
          url: command.url,
        }),
      ];
    }
    if (!state.exists) throw refuse("not_found", "id", "invalid", "no such club");
    const clubId = state.clubId;
    const target = state.members.get(command.athleteId);
    switch (command.type) {
      case "invite":
        if (target?.membership === "member" || state.invited.has(command.athleteId)) return [];
        return [clubMemberInvited.create({ clubId, athleteId: command.athleteId, invitedBy: command.invitedBy })];
      case "join":
        if (target?.membership === "member") return [];
        if (!state.private || state.invited.has(command.athleteId)) {
          return [clubJoined.create({ clubId, athleteId: command.athleteId })];
        }
        if (target?.membership === "pending") return [];
        return [clubMembershipRequested.create({ clubId, athleteId: command.athleteId })];
      case "leave":
        if (command.athleteId === state.ownerId) {
          throw refuse("forbidden", "athlete", "owner", "the owner cannot leave the club");
        }
        return target ? [clubLeft.create({ clubId, athleteId: command.athleteId })] : [];
      case "approve":
        requirePending(state, command.callerId, command.athleteId);
        return [clubMembershipApproved.create({ clubId, athleteId: command.athleteId, approvedBy: command.callerId })];
      case "decline":
        requirePending(state, command.callerId, command.athleteId);
        return [clubMembershipDeclined.create({ clubId, athleteId: command.athleteId, declinedBy: command.callerId })];
      case "promote":
        requireAdmin(state, command.callerId);
        if (target?.membership !== "member") {
          throw refuse("invalid", "athlete_id", "not a member", "only a member can be made an admin");
        }
        if (target.admin) return [];
        return [clubAdminPromoted.create({ clubId, athleteId: command.athleteId, promotedBy: command.callerId })];
      case "demote":
        requireAdmin(state, command.callerId);
        if (command.athleteId === state.ownerId) {
          throw refuse("forbidden", "athlete_id", "owner", "the owner cannot be removed from the admins");
        }
        if (target?.membership !== "member") {
          throw refuse("invalid", "athlete_id", "not a member", "the athlete is not a member");
        }
        if (!target.admin) return [];
        return [clubAdminDemoted.create({ clubId, athleteId: command.athleteId, demotedBy: command.callerId })];
    }
  },
};
