import { athleteAvatarUrl } from "../avatars/url.ts";
import type { AthleteRow } from "../../projections/athletes/queries.ts";

export type { AthleteRow };

/** Meta athlete: id and resource_state only. */
export function metaAthlete(id: number) {
  return { id, resource_state: 1 };
}

/** Relationship of the listed athlete to the viewer (follows); null when unknown or self. */
export interface Relationship {
  friend: string | null;
  follower: string | null;
}

/**
 * Who is looking at an athlete: the id of the athlete whose token makes the request. Only a token of
 * the athlete themself ever receives private attributes (weight, ftp, email, preferences, clubs,
 * gear); everyone else — other athletes, and applications acting for them with any scope — gets the
 * summary fields of the spec's Athlete table and nothing more.
 */
export interface AthleteViewer {
  athleteId: number;
}

/**
 * The form the answer asks for:
 * - `summary`: the spec's summary athlete (resource_state 2) with friend/follower;
 * - `detailed`: the detailed athlete (resource_state 3) — only for the athlete's own token; anyone
 *   else asking gets the summary;
 * - `token-exchange`: the summary plus `email` (the spec's token-exchange athlete) — again only for
 *   the athlete themself;
 * - `club-feed`: as club activity lists show an athlete, first name and last initial only, no id.
 */
export type AthleteForm =
  | { form: "summary"; relationship?: Relationship }
  | { form: "detailed"; extras?: DetailExtras }
  | { form: "token-exchange" }
  | { form: "club-feed" };

export interface DetailExtras {
  followerCount?: number;
  friendCount?: number;
  clubs?: unknown[];
  bikes?: unknown[];
  shoes?: unknown[];
  [more: string]: unknown;
}

/** The spec's summary athlete fields (Athlete table), in its order; nothing private among them. */
export const SUMMARY_ATHLETE_FIELDS = [
  "id",
  "resource_state",
  "firstname",
  "lastname",
  "profile_medium",
  "profile",
  "city",
  "state",
  "country",
  "sex",
  "premium",
  "summit",
  "created_at",
  "updated_at",
  "friend",
  "follower",
] as const;

/** Attributes that only the athlete's own token may receive. */
export const PRIVATE_ATHLETE_FIELDS = [
  "email",
  "weight",
  "ftp",
  "birthdate",
  "measurement_preference",
  "date_preference",
  "clubs",
  "bikes",
  "shoes",
  "follower_count",
  "friend_count",
  "mutual_friend_count",
  "athlete_type",
  "bio",
  "username",
  "default_visibility",
] as const;

function summaryOf(row: AthleteRow, relationship: Relationship = { friend: null, follower: null }) {
  return {
    id: Number(row.id),
    resource_state: 2,
    firstname: row.firstname,
    lastname: row.lastname,
    profile_medium: athleteAvatarUrl(Number(row.id), "medium"),
    profile: athleteAvatarUrl(Number(row.id), "large"),
    // Strings, never null (spec and Strava's model): "" where the athlete gave none.
    city: row.city ?? "",
    state: row.state ?? "",
    country: row.country ?? "",
    sex: row.sex,
    premium: row.premium,
    // Strava's SummaryAthlete: summit replaces the deprecated premium (the same subscription flag).
    summit: row.premium,
    created_at: row.created_at,
    updated_at: row.updated_at,
    friend: relationship.friend,
    follower: relationship.follower,
  };
}

function detailOf(row: AthleteRow, extras: DetailExtras) {
  const { followerCount, friendCount, clubs, bikes, shoes, ...more } = extras;
  return {
    ...summaryOf(row),
    username: "",
    bio: "",
    summit: row.premium,
    badge_type_id: row.premium ? 1 : 0,
    resource_state: 3,
    follower_count: followerCount ?? 0,
    friend_count: friendCount ?? 0,
    mutual_friend_count: 0,
    athlete_type: 0,
    date_preference: "%m/%d/%Y",
    measurement_preference: row.measurement_preference === "feet" ? "feet" : "meters",
    ftp: row.ftp,
    weight: row.weight ?? 0,
    clubs: clubs ?? [],
    bikes: bikes ?? [],
    shoes: shoes ?? [],
    default_visibility: row.default_visibility ?? "everyone",
    ...more,
  };
}

/**
 * The one way an athlete leaves the server (every route and representation goes through it):
 * the athlete `row` as `viewer` may see it, in the asked form. Private attributes only reach the
 * athlete's own token; a detailed or token-exchange form asked for anyone else falls back to the
 * summary.
 */
export function athleteFor(row: AthleteRow, viewer: AthleteViewer, shape: AthleteForm): Record<string, unknown> {
  const self = Number(row.id) === viewer.athleteId;
  switch (shape.form) {
    case "club-feed":
      return { resource_state: 2, firstname: row.firstname, lastname: initialOf(row.lastname) };
    case "detailed":
      return self ? detailOf(row, shape.extras ?? {}) : summaryOf(row);
    case "token-exchange":
      return self ? { ...summaryOf(row), email: row.email } : summaryOf(row);
    case "summary":
      return summaryOf(row, self ? undefined : shape.relationship);
  }
}

/** "Bell" → "B." (as the club feed shows a last name); empty stays empty. */
function initialOf(lastname: string): string {
  const first = [...(lastname ?? "").trim()][0];
  return first ? `${first}.` : "";
}
