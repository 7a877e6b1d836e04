import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { readBody } from "../http/body.ts";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../representations/athlete.ts";
import { Page } from "./layout.tsx";
import { csrfValid, currentSession, type Session } from "./session.ts";

/** What every page handler needs: the session, the signed-in athlete and a renderer. */
export interface Web {
  session: Session;
  athlete: { id: number; name: string; email: string } | null;
  render(title: string, body: Child, status?: number): Response | Promise<Response>;
}

export async function web(c: Context, platform: Platform): Promise<Web> {
  const session = currentSession(c, platform);
  let athlete: Web["athlete"] = null;
  if (session.athleteId !== null) {
    const row = await findAthlete(platform.db, session.athleteId);
    if (row) athlete = { id: Number(row.id), name: `${row.firstname} ${row.lastname}`, email: row.email };
  }
  return {
    session,
    athlete,
    render(title, body, status = 200) {
      c.header("cache-control", "no-store");
      c.header("x-frame-options", "DENY");
      c.header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'");
      c.header("referrer-policy", "no-referrer");
      return c.html(
        "<!doctype html>" + (
          <Page title={title} athlete={athlete} csrf={session.csrf}>{body}</Page>
        ).toString(),
        status as 200,
      );
    },
  };
}

/** The submitted form fields (strings only). */
export async function formOf(c: Context): Promise<Record<string, string>> {
  const body = await readBody(c);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === "string") out[key] = value;
  return out;
}

/** A refusal page for a form posted without this session's CSRF token (403). */
export function csrfRefused(w: Web, form: Record<string, string>): Response | Promise<Response> | null {
  if (csrfValid(w.session, form._csrf)) return null;
  return w.render(
    "Form expired",
    <div class="card">
      <h1>This form has expired</h1>
      <div class="error" role="alert">
        The form was sent without a valid security (CSRF) token, so nothing was changed. Go back, reload
        the page and try again.
      </div>
    </div>,
    403,
  );
}

/** A local path to return to after signing in (never another site). */
export function safeNext(next: string | undefined, fallback: string): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return fallback;
  return next;
}

/** Redirects a visitor who is not signed in to the sign-in page, coming back here afterwards. */
export function toSignIn(c: Context): Response {
  const url = new URL(c.req.url);
  return c.redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, 302);
}
