import type { z } from "zod";
import { clubAvatarUrl } from "../avatars/url.ts";
import type { zDetailedClub, zSummaryClub } from "./schema.ts";
import { clubSportFields, clubSportType } from "./sport.ts";
import type { ClubRow, MembershipFields } from "../../projections/clubs/queries.ts";

export type { ClubRow, MembershipFields };

/** Meta club (resource_state 1): id, resource_state, name. */
export function metaClub(row: Pick<ClubRow, "id" | "name">) {
  return { id: Number(row.id), resource_state: 1, name: row.name };
}

/** Summary club (resource_state 2), the spec's "summary" column. */
export function summaryClub(row: ClubRow): z.input<typeof zSummaryClub> {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    profile_medium: clubAvatarUrl(Number(row.id), "medium"),
    profile: clubAvatarUrl(Number(row.id), "large"),
    // Strava's model types these as strings (URLs; its clients parse them as URLs): the club's cover band.
    cover_photo: clubAvatarUrl(Number(row.id), "cover"),
    cover_photo_small: clubAvatarUrl(Number(row.id), "cover_small"),
    ...clubSportFields(row.sport_type),
    sport_type: clubSportType(row.sport_type),
    // Strings, never null (spec and Strava's model): "" where the club names none.
    city: row.city ?? "",
    state: row.state ?? "",
    country: row.country ?? "",
    private: row.private,
    member_count: Number(row.member_count),
    featured: false,
    verified: row.verified,
    url: row.url ?? "",
  };
}

/** Detailed club (resource_state 3) with the requester's membership fields. */
export function detailedClub(
  row: ClubRow,
  requester: MembershipFields,
  followingCount: number,
): z.input<typeof zDetailedClub> {
  return {
    ...summaryClub(row),
    resource_state: 3,
    description: row.description ?? "",
    club_type: row.club_type,
    owner_id: Number(row.owner_id),
    following_count: followingCount,
    membership: requester.membership,
    admin: requester.admin,
    owner: requester.owner,
  };
}
