import { z } from "zod";
import { callRoute } from "../call-route.ts";
import { clock, km, num, round, str } from "../format.ts";
import { zId, zLimit, zPage } from "../shapes.ts";
import { defineTool, type Tool } from "../tool.ts";

type Json = Record<string, unknown>;

const zClub = z.object({
  id: z.number().int().describe("Club id (get_club, get_club_activities)."),
  name: z.string(),
  sport_type: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  private: z.boolean().nullable(),
  member_count: z.number().nullable(),
});

const clubOf = (c: Json) => ({
  id: Number(c.id),
  name: String(c.name),
  sport_type: str(c.sport_type),
  city: str(c.city),
  country: str(c.country),
  private: typeof c.private === "boolean" ? c.private : null,
  member_count: num(c.member_count),
});

export const listClubs = defineTool({
  name: "list_clubs",
  title: "My clubs",
  description: "The clubs the signed-in athlete belongs to (GET /v3/athlete/clubs): id, name, sport, place, members.",
  input: { page: zPage, limit: zLimit(100, 30) },
  output: { clubs: z.array(zClub) },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const rows = await callRoute(ctx, "GET", "/v3/athlete/clubs", {
      query: { page: args.page, per_page: args.limit },
    }) as Json[];
    const clubs = rows.map(clubOf);
    return {
      structured: { clubs },
      text: clubs.length
        ? clubs.map((c) => `#${c.id} ${c.name} (${c.member_count} members)`).join("\n")
        : "Not in any club.",
    };
  },
});

export const getClub = defineTool({
  name: "get_club",
  title: "One club",
  description: "A club (GET /v3/clubs/{id}): name, sport, place, members, description, and the athlete's membership.",
  input: { id: zId.describe("Club id.") },
  output: {
    club: zClub,
    description: z.string().nullable(),
    membership: z.string().nullable(),
    admin: z.boolean().nullable(),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const c = await callRoute(ctx, "GET", "/v3/clubs/:id", { params: { id: args.id } }) as Json;
    const club = clubOf(c);
    return {
      structured: {
        club,
        description: str(c.description),
        membership: str(c.membership),
        admin: typeof c.admin === "boolean" ? c.admin : null,
      },
      text: `#${club.id} ${club.name}: ${club.sport_type ?? "?"}, ${club.member_count} members${
        club.city ? `, ${club.city}` : ""
      }${c.membership ? ` — you are ${c.membership}` : ""}`,
    };
  },
});

export const getClubActivities = defineTool({
  name: "get_club_activities",
  title: "A club's feed",
  description:
    "Recent activities of a club's members (GET /v3/clubs/{id}/activities; members only; private activities never listed), newest first, as the API gives them: the athlete as first name and initial, name, sport, distance (m), moving and elapsed time (s), elevation gain (m) — no ids, dates or places.",
  input: { id: zId.describe("Club id."), page: zPage, limit: zLimit(100, 20) },
  output: {
    activities: z.array(z.object({
      athlete: z.string(),
      name: z.string(),
      sport_type: z.string().nullable(),
      distance_m: z.number().nullable(),
      moving_time_s: z.number().nullable(),
      elapsed_time_s: z.number().nullable(),
      elevation_gain_m: z.number().nullable(),
    })),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const rows = await callRoute(ctx, "GET", "/v3/clubs/:id/activities", {
      params: { id: args.id },
      query: { page: args.page, per_page: args.limit },
    }) as Json[];
    const activities = rows.map((a) => {
      const who = (a.athlete ?? {}) as Json;
      return {
        athlete: [str(who.firstname), str(who.lastname)].filter(Boolean).join(" "),
        name: String(a.name),
        sport_type: str(a.sport_type),
        distance_m: round(a.distance, 1),
        moving_time_s: num(a.moving_time),
        elapsed_time_s: num(a.elapsed_time),
        elevation_gain_m: round(a.total_elevation_gain, 1),
      };
    });
    return {
      structured: { activities },
      text: activities.length
        ? activities.map((a) =>
          `${a.athlete}: "${a.name}" ${a.sport_type} ${km(a.distance_m)} ${clock(a.moving_time_s)}`
        )
          .join("\n")
        : "No activities in this club's feed.",
    };
  },
});

export const clubTools: Tool[] = [listClubs, getClub, getClubActivities];
