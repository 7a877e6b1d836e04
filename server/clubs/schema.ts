import { z } from "zod";
import { int, model, zActivityTypeEnum } from "../http/schema.ts";

/** Clubs (Strava's SummaryClub / DetailedClub, the club feed's ClubActivity). */
const summaryShape = {
  id: int,
  resource_state: int,
  name: z.string(),
  profile_medium: z.string().meta({ format: "uri" }),
  profile: z.string().meta({ format: "uri" }),
  cover_photo: z.string().meta({ format: "uri" }),
  cover_photo_small: z.string().meta({ format: "uri" }),
  activity_types: z.array(zActivityTypeEnum),
  activity_types_icon: z.string(),
  localized_sport_type: z.string(),
  sport_type: z.enum(["cycling", "running", "triathlon", "other"]),
  city: z.string(),
  state: z.string(),
  country: z.string(),
  private: z.boolean(),
  member_count: int,
  featured: z.boolean(),
  verified: z.boolean(),
  url: z.string(),
};

const example = {
  id: 231407,
  resource_state: 2,
  name: "Dom Riders",
  profile_medium: "https://fitness.example/avatars/clubs/231407/medium.png",
  profile: "https://fitness.example/avatars/clubs/231407/large.png",
  cover_photo: "https://fitness.example/avatars/clubs/231407/cover.png",
  cover_photo_small: "https://fitness.example/avatars/clubs/231407/cover_small.png",
  activity_types: ["Ride", "VirtualRide"],
  activity_types_icon: "sports_bike_normal",
  localized_sport_type: "Cycling",
  sport_type: "cycling",
  city: "Utrecht",
  state: "",
  country: "Netherlands",
  private: false,
  member_count: 12,
  featured: false,
  verified: false,
  url: "dom-riders",
};

const membership = z.enum(["member", "pending"]).nullable();

export const zSummaryClub = model(
  "SummaryClub",
  z.object({
    ...summaryShape,
    membership: membership.optional(),
    admin: z.boolean().optional(),
    owner: z.boolean().optional(),
  }),
  "A club (resource_state 2); in the athlete's own club list also their membership, admin and owner.",
  example,
);

export const zDetailedClub = model(
  "DetailedClub",
  z.object({
    ...summaryShape,
    description: z.string(),
    club_type: z.string(),
    owner_id: int,
    following_count: int,
    membership,
    admin: z.boolean(),
    owner: z.boolean(),
  }),
  "A club with the requester's membership (resource_state 3).",
  {
    ...example,
    resource_state: 3,
    description: "Sunday rides from the Dom.",
    club_type: "casual_club",
    owner_id: 134815,
    following_count: 2,
    membership: "member",
    admin: true,
    owner: true,
  },
);

/** Join and leave answers. */
export const zMembership = model(
  "ClubMembershipResponse",
  z.object({
    success: z.boolean(),
    active: z.boolean(),
    membership: z.enum(["member", "pending"]).nullable().optional(),
  }),
  "The requester's membership after joining or leaving.",
  { success: true, active: true, membership: "member" },
);

export const zSummaryClubList = z.array(zSummaryClub);
