import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { readBody } from "../http/body.ts";
import { badRequest } from "../http/errors.ts";
import { unstorableFields } from "../http/input.ts";
import type { Platform } from "../platform.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { Page } from "./layout.tsx";
import { pagePolicy } from "../http/security-headers.ts";

/** The form pages' policy: no script, inline styles, forms posted here (and redirected to an app's callback). */
const FORM_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'";
import { csrfToken, csrfValid, currentSession, leaveNote, type Reveal, type Session, takeNote } from "./session.ts";

/** What every page handler needs: the session, the signed-in athlete, the CSRF token and a renderer. */
export interface Web {
  /** The signed-in athlete's session (undefined for anonymous visitors: no server-side state). */
  session: Session | undefined;
  /** units: the athlete's measurement_preference, which the app's pages format distances in. */
  athlete: { id: number; name: string; email: string; units: "meters" | "feet" } | null;
  /** The token this visitor's forms carry. */
  csrf: string;
  /** Checks a posted form's token (sign-in and sign-up forms also accept the anonymous one). */
  csrfOk(submitted: unknown, anonymousAllowed?: boolean): Promise<boolean>;
  /** One-time notice / secrets for the signed-in athlete's next page. */
  leaveFlash(message: string): void;
  takeFlash(): string | undefined;
  leaveReveal(reveal: Reveal): void;
  takeReveal(): Reveal | undefined;
  render(title: string, body: Child, status?: number): Response | Promise<Response>;
}

export async function web(c: Context, platform: Platform): Promise<Web> {
  let session = await currentSession(c, platform);
  let athlete: Web["athlete"] = null;
  if (session) {
    const row = await findAthlete(platform.db, session.athleteId);
    if (row) {
      athlete = {
        id: Number(row.id),
        name: `${row.firstname} ${row.lastname}`,
        email: row.email,
        units: row.measurement_preference === "feet" ? "feet" : "meters",
      };
    } else session = undefined;
  }
  const csrf = await csrfToken(c, platform, session);
  return {
    session,
    athlete,
    csrf,
    csrfOk: (submitted, anonymousAllowed = false) => csrfValid(c, platform, session, submitted, anonymousAllowed),
    leaveFlash: (flash) => session && leaveNote(platform, session, { flash }),
    takeFlash: () => session && takeNote(platform, session, "flash"),
    leaveReveal: (reveal) => session && leaveNote(platform, session, { reveal }),
    takeReveal: () => session && takeNote(platform, session, "reveal"),
    render(title, body, status = 200) {
      c.header("cache-control", "no-store");
      // The consent form's answer redirects to the client's callback (form-action); the security
      // headers middleware writes this policy with nosniff and frame protection.
      pagePolicy(c, { csp: FORM_PAGE_CSP, referrerPolicy: "no-referrer" });
      return c.html(
        "<!doctype html>" + (
          <Page
            title={title}
            athlete={athlete}
            csrf={csrf}
            current={c.req.path.startsWith("/settings") ? "settings" : undefined}
          >
            {body}
          </Page>
        ).toString(),
        status as 200,
      );
    },
  };
}

/**
 * The submitted form fields (strings only). Text the database cannot store (U+0000, lone
 * surrogates) is refused with the documented 400, as on the API, before anything is written.
 */
export async function formOf(c: Context): Promise<Record<string, string>> {
  const body = await readBody(c);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === "string") out[key] = value;
  const [unstorable] = unstorableFields(out);
  if (unstorable) throw badRequest("Form", unstorable, "invalid");
  return out;
}

/** A refusal page for a form posted without a valid CSRF token (403), or null when it has one. */
export async function csrfRefused(
  w: Web,
  form: Record<string, string>,
  anonymousAllowed = false,
): Promise<Response | null> {
  if (await w.csrfOk(form._csrf, anonymousAllowed)) return null;
  return w.render(
    "Form expired",
    <div class="card">
      <h1>This form has expired</h1>
      <div class="error" role="alert">
        The form was sent without a valid security (CSRF) token, so nothing was changed. Go back, reload the page and
        try again.
      </div>
    </div>,
    403,
  );
}
