import { z } from "zod";
import { findAthletes, findChallenges, findClubs } from "../../projections/queries/discover.ts";
import { paging, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { model } from "../http/schema.ts";

/**
 * Finding clubs, athletes and challenges by name, beyond the spec (the web app's Find page:
 * somewhere for a new athlete to go). Each answers a page of matches with whether the caller is
 * already in (joined, following); those not joined come first.
 */
const query = z.object({ q: z.string().max(100).optional(), ...zPaging });
const int = z.number().int();

const zFoundClub = model(
  "FoundClub",
  z.object({
    id: int,
    name: z.string(),
    sport_type: z.string(),
    city: z.string().nullable(),
    country: z.string().nullable(),
    private: z.boolean(),
    member_count: int,
    joined: z.boolean(),
  }),
  "A club found by name (GET /v3/clubs/search): whether the caller is in it (a member or asking to be).",
  {
    id: 231407,
    name: "Dom Riders",
    sport_type: "cycling",
    city: "Utrecht",
    country: "Netherlands",
    private: false,
    member_count: 12,
    joined: false,
  },
);
const zFoundAthlete = model(
  "FoundAthlete",
  z.object({
    id: int,
    firstname: z.string(),
    lastname: z.string(),
    city: z.string().nullable(),
    country: z.string().nullable(),
    friend: z.enum(["accepted"]).nullable(),
  }),
  'An athlete found by name (GET /v3/athletes/search): `friend` is Strava\'s field for whether the caller follows them ("accepted", else null).',
  {
    id: 227615,
    firstname: "Ada",
    lastname: "Lovelace",
    city: "London",
    country: "United Kingdom",
    friend: null,
  },
);
const zFoundChallenge = model(
  "FoundChallenge",
  z.object({
    id: int,
    name: z.string(),
    type: z.string(),
    start_date: z.string(),
    end_date: z.string(),
    participant_count: int,
    joined: z.boolean(),
  }),
  "A challenge found by name (GET /v3/challenges/search): whether the caller has joined it.",
  {
    id: 12,
    name: "Ride 100 km this month",
    type: "distance",
    start_date: "2026-11-01",
    end_date: "2026-11-30",
    participant_count: 3,
    joined: false,
  },
);

export const discoverRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/clubs/search",
    response: z.array(zFoundClub),
    summary:
      "Clubs whose name contains q (beyond the spec), those the caller has not joined first; joined says whether the caller is a member or asked to be.",
    tag: "Clubs",
    auth: "token",
    resource: "Club",
    query,
    async handler({ platform, auth, query }) {
      const { perPage, offset } = paging(query);
      const rows = await findClubs(platform.db, auth.athleteId, query.q?.trim() ?? "", perPage, offset);
      return rows.map((r) => ({ ...r, id: Number(r.id) }));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/search",
    response: z.array(zFoundAthlete),
    summary:
      "Athletes whose name contains q (beyond the spec), those the caller does not follow first; athletes with enhanced privacy are not listed.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    query,
    async handler({ platform, auth, query }) {
      const { perPage, offset } = paging(query);
      const rows = await findAthletes(platform.db, auth.athleteId, query.q?.trim() ?? "", perPage, offset);
      return rows.map(({ following, ...r }) => ({
        ...r,
        id: Number(r.id),
        friend: following ? "accepted" as const : null,
      }));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/challenges/search",
    response: z.array(zFoundChallenge),
    summary:
      "Challenges whose name contains q (beyond the spec), those the caller has not joined first, latest ending first.",
    tag: "Challenges",
    auth: "token",
    resource: "Challenge",
    query,
    async handler({ platform, auth, query }) {
      const { perPage, offset } = paging(query);
      const rows = await findChallenges(platform.db, auth.athleteId, query.q?.trim() ?? "", perPage, offset);
      return rows.map((r) => ({ ...r, id: Number(r.id) }));
    },
  }),
];
