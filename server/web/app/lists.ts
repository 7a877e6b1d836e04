import { type Context, Hono } from "hono";
import { ACTIVITY_TYPES } from "../../../shared/activity-types.ts";
import type { Platform } from "../../platform.ts";
import { web } from "../context.tsx";
import { redirectToSignIn } from "../redirect.ts";
import { escapeHtml, shell, type ShellOptions } from "./shell.ts";
import { sessionToken } from "./token.ts";

/**
 * The athlete's lists (docs/web-app.md), drawn by lists.js from the API: their activities (search by
 * name, filter by sport and dates), their routes, and Find (clubs, athletes and challenges they are
 * not in yet, by name).
 */
const PAGES: {
  path: string;
  title: string;
  list: "activities" | "routes" | "find";
  current: ShellOptions["current"];
}[] = [
  { path: "/activities", title: "Your activities", list: "activities", current: "activities" },
  { path: "/routes", title: "Your routes", list: "routes", current: "routes" },
  { path: "/find", title: "Find clubs, athletes and challenges", list: "find", current: "find" },
];

async function listPage(c: Context, platform: Platform, page: (typeof PAGES)[number]): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const t = await sessionToken(c, platform, w.athlete.id);
  if (!t) return redirectToSignIn(c);
  return shell(c, {
    title: page.title,
    athlete: w.athlete,
    csrf: w.csrf,
    token: t.token,
    tokenExpiresAt: t.expiresAt,
    current: page.current,
    script: "lists.js",
    styles: ["activity-tools.css"],
    data: { list: page.list, activityTypes: ACTIVITY_TYPES, query: c.req.query("q")?.slice(0, 100) ?? "" },
    body: `<div id="lists"><h1>${escapeHtml(page.title)}</h1><p class="muted" role="status">Loading…</p></div>`,
  });
}

/** The list pages (mounted at `/`). */
export function listPages(platform: Platform): Hono {
  const pages = new Hono();
  for (const page of PAGES) pages.get(page.path, (c) => listPage(c, platform, page));
  return pages;
}
