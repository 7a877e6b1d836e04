import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/** Club facts. Every membership move is an event of the club's stream (`club-<id>`). */

export const CLUB_TYPES = ["casual_club", "racing_team", "shop", "company", "other"] as const;
export const CLUB_SPORT_TYPES = ["cycling", "running", "triathlon", "other"] as const;

const ids = { clubId: z.number().int().positive(), athleteId: z.number().int().positive() };

export const clubCreated = defineEvent({
  type: "ClubCreated",
  description: "A club was created (CLI or POST /v3/clubs); its owner is its first member and admin.",
  schema: z.object({
    clubId: z.number().int().positive(),
    ownerId: z.number().int().positive(),
    name: z.string(),
    description: z.string().nullable(),
    clubType: z.enum(CLUB_TYPES),
    sportType: z.enum(CLUB_SPORT_TYPES),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().nullable(),
    private: z.boolean(),
    verified: z.boolean(),
    /** Vanity slug, unique, chosen once at creation. */
    url: z.string(),
  }),
});

export const clubMemberInvited = defineEvent({
  type: "ClubMemberInvited",
  description: "An operator invited an athlete: their next join is accepted directly, even for a private club.",
  schema: z.object({ ...ids, invitedBy: z.number().int().positive().nullable() }),
});

export const clubJoined = defineEvent({
  type: "ClubJoined",
  description: "An athlete became a member (public club, or invited to a private one).",
  schema: z.object(ids),
});

export const clubMembershipRequested = defineEvent({
  type: "ClubMembershipRequested",
  description: "An athlete asked to join a private club; pending until an admin approves or declines.",
  schema: z.object(ids),
});

export const clubMembershipApproved = defineEvent({
  type: "ClubMembershipApproved",
  description: "A club admin approved a pending request: the athlete is a member.",
  schema: z.object({ ...ids, approvedBy: z.number().int().positive() }),
});

export const clubMembershipDeclined = defineEvent({
  type: "ClubMembershipDeclined",
  description: "A club admin declined a pending request: the athlete is not a member.",
  schema: z.object({ ...ids, declinedBy: z.number().int().positive() }),
});

export const clubLeft = defineEvent({
  type: "ClubLeft",
  description: "A member (or a pending requester, withdrawing) left the club.",
  schema: z.object(ids),
});

export const clubAdminPromoted = defineEvent({
  type: "ClubAdminPromoted",
  description: "A club admin made a member an admin.",
  schema: z.object({ ...ids, promotedBy: z.number().int().positive() }),
});

export const clubAdminDemoted = defineEvent({
  type: "ClubAdminDemoted",
  description: "A club admin made an admin (never the owner) a plain member again.",
  schema: z.object({ ...ids, demotedBy: z.number().int().positive() }),
});

export const clubStream = (clubId: number) => `club-${clubId}`;

/** The events of a club's stream (`clubStream`, `clubDecider`). */
export type ClubEvent = EventOf<
  | typeof clubCreated
  | typeof clubMemberInvited
  | typeof clubJoined
  | typeof clubMembershipRequested
  | typeof clubMembershipApproved
  | typeof clubMembershipDeclined
  | typeof clubLeft
  | typeof clubAdminPromoted
  | typeof clubAdminDemoted
>;

/** The athlete's Enhanced Privacy setting: when on, only fellow members see them in club member lists. */
export const athleteEnhancedPrivacyChanged = defineEvent({
  type: "AthleteEnhancedPrivacyChanged",
  description: "An athlete turned Enhanced Privacy on or off (hides them from non-members' club member lists).",
  schema: z.object({ athleteId: z.number().int().positive(), enhancedPrivacy: z.boolean() }),
});

export const athleteSettingsStream = (athleteId: number) => `athlete-settings-${athleteId}`;

/** The events of an athlete's settings stream (`athleteSettingsStream`, `athleteSettingsDecider`). */
export type AthleteSettingsEvent = EventOf<typeof athleteEnhancedPrivacyChanged>;
