import { type Context, Hono } from "hono";
import {
  type ApplicationRow,
  findApplication,
  findAuthorization,
  grantAuthorization,
  redirectAllowed,
} from "../oauth/commands.ts";
import { jsonResponse } from "../http/conventions.ts";
import { parseScope, type Permission, SCOPE_PERMISSIONS } from "../http/auth.ts";
import type { Platform } from "../platform.ts";
import { csrfRefused, formOf, web } from "./context.tsx";
import { redirectToClient, redirectToSignIn as toSignIn } from "./redirect.ts";
import { Csrf } from "./layout.tsx";
import { oauthPaths } from "./oauth-endpoints.ts";
import { audienceOf } from "../oauth/resource.ts";
import { redirectMatches } from "../oauth/registration.ts";
import type { TokenAudience } from "../../events/application/audience.ts";

/** A refused authorization request: shown as a page (never a redirect). */
class AuthorizeRefusal {
  constructor(readonly resource: string, readonly field: string, readonly code: string) {}
}

export interface AuthorizeRequest {
  app: ApplicationRow;
  redirectUri: string;
  approvalPrompt: "auto" | "force";
  permissions: Permission[];
  /** The requested scope names, in order, without repeats ("read" when blank). */
  scopeNames: string[];
  state: string | undefined;
  codeChallenge: string | null;
  /** What the tokens will be for (RFC 8707 `resource`): the API, or the MCP endpoint. */
  audience: TokenAudience;
  /** The `resource` parameter as sent (carried through the consent form), if any. */
  resource: string | undefined;
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The scope names of a request. An application registered by an athlete must name only known
 * scopes; a client that registered itself (an MCP client) may send others too — OpenID's
 * "openid email profile", "offline_access" — which are left out (RFC 6749 §3.3: the server may
 * grant less than asked).
 */
function scopeNamesOf(scope: string | undefined, lenient: boolean): { names: string[]; known: boolean } {
  const all = [...new Set((scope ?? "").split(/[,\s]+/).filter(Boolean))];
  const names = lenient ? all.filter((name) => SCOPE_PERMISSIONS[name]) : all;
  return { names, known: names.every((name) => SCOPE_PERMISSIONS[name]) };
}

/** Checks the parameters of /oauth/authorize in the order a client would fix them. */
async function checkRequest(platform: Platform, p: Record<string, string | undefined>): Promise<AuthorizeRequest> {
  if (!p.client_id) throw new AuthorizeRefusal("Application", "client_id", "missing");
  if (!/^\d{1,15}$/.test(p.client_id)) throw new AuthorizeRefusal("Application", "client_id", "invalid");
  const app = await findApplication(platform, Number(p.client_id));
  if (!app) throw new AuthorizeRefusal("Application", "client_id", "invalid");
  const dynamic = app.registration === "dynamic";
  if (!p.redirect_uri) throw new AuthorizeRefusal("Application", "redirect_uri", "missing");
  const redirectOk = dynamic
    ? redirectMatches(app.redirect_uris, p.redirect_uri)
    : redirectAllowed(p.redirect_uri, app.callback_domain);
  if (!redirectOk) throw new AuthorizeRefusal("Application", "redirect_uri", "invalid");
  if (!p.response_type) throw new AuthorizeRefusal("Authorize", "response_type", "missing");
  if (p.response_type !== "code") throw new AuthorizeRefusal("Authorize", "response_type", "invalid");
  const approvalPrompt = p.approval_prompt || "auto";
  if (approvalPrompt !== "auto" && approvalPrompt !== "force") {
    throw new AuthorizeRefusal("Authorize", "approval_prompt", "invalid");
  }
  if ((p.scope ?? "").length > 500) throw new AuthorizeRefusal("Authorize", "scope", "invalid");
  const { names, known } = scopeNamesOf(p.scope, dynamic);
  const permissions = known ? parseScope(names.join(",")) : undefined;
  if (!permissions) throw new AuthorizeRefusal("Authorize", "scope", "invalid");
  if ((p.state ?? "").length > 2000) throw new AuthorizeRefusal("Authorize", "state", "invalid");
  let codeChallenge: string | null = null;
  if (p.code_challenge !== undefined || p.code_challenge_method !== undefined) {
    if (p.code_challenge_method !== "S256") throw new AuthorizeRefusal("Authorize", "code_challenge_method", "invalid");
    if (!p.code_challenge) throw new AuthorizeRefusal("Authorize", "code_challenge", "missing");
    if (!S256_CHALLENGE.test(p.code_challenge)) throw new AuthorizeRefusal("Authorize", "code_challenge", "invalid");
    codeChallenge = p.code_challenge;
  }
  // RFC 8707: the resource the tokens are for. A client that registered itself gets MCP tokens only.
  const named = audienceOf(p.resource, platform.config.publicUrl);
  if (named === "invalid" || (dynamic && named === "api")) {
    throw new AuthorizeRefusal("Authorize", "resource", "invalid");
  }
  const audience = named ?? (dynamic ? "mcp" : "api");
  // MCP tokens only through code + PKCE S256 (MCP authorization; OAuth 2.1).
  if (audience === "mcp" && !codeChallenge) throw new AuthorizeRefusal("Authorize", "code_challenge", "missing");
  return {
    app,
    redirectUri: p.redirect_uri,
    approvalPrompt,
    permissions,
    scopeNames: names.length ? names : ["read"],
    state: p.state,
    codeChallenge,
    audience,
    resource: p.resource || undefined,
  };
}

const BASIC = (name: string) => (SCOPE_PERMISSIONS[name] ?? []).every((p) => p === "read");

const SCOPE_TEXT: Record<string, string> = {
  public: "View your public profile and public activities",
  read: "View your public profile, segments, clubs and leaderboards",
  "activity:read": "View your public activities",
  read_all: "View your private data (routes, segments, events)",
  "profile:read_all": "View your complete profile",
  "activity:read_all": "View your private activities and data within privacy zones",
  view_private: "View your private activities and data within privacy zones",
  write: "Upload activities and change your activities and profile",
  "activity:write": "Upload activities and change your activities",
  "profile:write": "Change your profile (weight, FTP) and star segments",
};

/** What an AI assistant connected through /mcp may do with each scope (its tools, docs/mcp.md). */
const MCP_SCOPE_TEXT: Record<string, string> = {
  public: "Read your profile and totals, your public activities, segments, clubs and routes",
  read: "Read your profile and totals, your public activities, segments, clubs and routes",
  "activity:read": "Read your profile and totals, your public activities, segments, clubs and routes",
  read_all: "Also read your private activities and their data inside your privacy zones",
  "profile:read_all": "Also read your private activities and their data inside your privacy zones",
  "activity:read_all": "Also read your private activities and their data inside your privacy zones",
  view_private: "Also read your private activities and their data inside your privacy zones",
  write: "Rename, describe and change the sport of your activities, add manual activities, give kudos and comment",
  "activity:write":
    "Rename, describe and change the sport of your activities, add manual activities, give kudos and comment",
  "profile:write":
    "Rename, describe and change the sport of your activities, add manual activities, give kudos and comment",
};

/** The scope in words: for an AI assistant (the MCP endpoint), what its tools may do; for an app, the API's words. */
const scopeText = (r: AuthorizeRequest, name: string) =>
  (r.audience === "mcp" ? MCP_SCOPE_TEXT[name] : SCOPE_TEXT[name]) ?? name;

function ConsentForm(props: { csrf: string; request: AuthorizeRequest; athleteName: string }) {
  const r = props.request;
  const dynamic = r.app.registration === "dynamic";
  return (
    <div class="card">
      <h1>{r.audience === "mcp" ? `Connect ${r.app.name} to your training log` : `Authorize ${r.app.name}`}</h1>
      <p>
        <strong>{r.app.name}</strong> {r.app.website ? <span class="muted">({r.app.website})</span> : null}{" "}
        asks to connect to your account, <strong>{props.athleteName}</strong>
        {r.audience === "mcp" ? ", as an AI assistant (MCP) reading your log through this server's /mcp address" : ""}.
      </p>
      {dynamic
        ? (
          <p class="hint" id="unverified">
            This client registered itself: its name is what it says it is, not checked by anyone. Continue only if you
            just asked your assistant to connect.
          </p>
        )
        : null}
      {r.app.description ? <p class="muted">{r.app.description}</p> : null}
      <form method="post" action="/oauth/authorize">
        <Csrf token={props.csrf} />
        <input type="hidden" name="client_id" value={String(r.app.id)} />
        <input type="hidden" name="redirect_uri" value={r.redirectUri} />
        <input type="hidden" name="response_type" value="code" />
        <input type="hidden" name="approval_prompt" value={r.approvalPrompt} />
        <input type="hidden" name="scope" value={r.scopeNames.join(",")} />
        {r.state !== undefined ? <input type="hidden" name="state" value={r.state} /> : null}
        {r.codeChallenge ? <input type="hidden" name="code_challenge" value={r.codeChallenge} /> : null}
        {r.codeChallenge ? <input type="hidden" name="code_challenge_method" value="S256" /> : null}
        {r.resource ? <input type="hidden" name="resource" value={r.resource} /> : null}
        <h2>It will be able to</h2>
        <ul class="scopes">
          {r.scopeNames.map((name) =>
            BASIC(name)
              ? (
                <li>
                  <input type="checkbox" checked disabled /> {scopeText(r, name)}{" "}
                  <span class="muted">({name}, required)</span>
                </li>
              )
              : (
                <li>
                  <label style="display:inline;font-weight:normal">
                    <input type="checkbox" name={`grant.${name}`} value="1" checked /> {scopeText(r, name)}{" "}
                    <span class="muted">({name})</span>
                  </label>
                </li>
              )
          )}
        </ul>
        <p class="hint">
          You will return to {new URL(r.redirectUri).host}. You can revoke access at any time on My apps.
        </p>
        <div class="actions">
          <button type="submit" name="decision" value="approve" id="approve">Authorize</button>
          <button type="submit" name="decision" value="deny" id="deny" class="secondary">Cancel</button>
        </div>
      </form>
    </div>
  );
}

/** An invalid authorization request: JSON for a client, an HTML page (no redirect back) for a browser. */
async function refuse(c: Context, platform: Platform, refusal: AuthorizeRefusal): Promise<Response> {
  const triple = { resource: refusal.resource, field: refusal.field, code: refusal.code };
  if (!(c.req.header("accept") ?? "").includes("text/html")) {
    return jsonResponse(c, { message: "Bad Request", errors: [triple] }, 400);
  }
  const w = await web(c, platform);
  return w.render(
    "Authorization error",
    <div class="card">
      <h1>This authorization request is not valid</h1>
      <div class="error" role="alert">
        The application sent an invalid request ({triple.resource} {triple.field}:{" "}
        {triple.code}), so you were not sent back to it. Please contact the application's developer.
      </div>
    </div>,
    400,
  );
}

/** GET: the consent page (or, with approval_prompt=auto and the scopes already granted, straight back with a code). */
async function consentPage(c: Context, platform: Platform): Promise<Response> {
  let request: AuthorizeRequest;
  try {
    request = await checkRequest(platform, c.req.query());
  } catch (error) {
    if (error instanceof AuthorizeRefusal) return refuse(c, platform, error);
    throw error;
  }
  const w = await web(c, platform);
  if (!w.athlete) return toSignIn(c);
  // An AI assistant (MCP tokens) is always asked for: its name is its own say-so.
  if (request.approvalPrompt === "auto" && request.audience === "api") {
    const pair = await findAuthorization(platform, w.athlete.id, request.app.id);
    const held = new Set((pair?.permissions ?? "").split(","));
    if (pair?.authorized && pair.consented && request.permissions.every((p) => held.has(p))) {
      const code = await grantAuthorization(platform, {
        athleteId: w.athlete.id,
        applicationId: request.app.id,
        permissions: request.permissions,
        scope: request.scopeNames.join(","),
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        prompted: false,
        audience: request.audience,
      });
      return redirectToClient(c, request.redirectUri, {
        state: request.state ?? "",
        code,
        scope: request.scopeNames.join(","),
      });
    }
  }
  return w.render(
    `Authorize ${request.app.name}`,
    <ConsentForm csrf={w.csrf} request={request} athleteName={w.athlete.name} />,
  );
}

/** POST: the athlete's decision, back to the client with a code (or access_denied). */
async function decide(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  let request: AuthorizeRequest;
  try {
    request = await checkRequest(platform, form);
  } catch (error) {
    if (error instanceof AuthorizeRefusal) return refuse(c, platform, error);
    throw error;
  }
  if (!w.athlete) return toSignIn(c);
  if (form.decision !== "approve") {
    return redirectToClient(c, request.redirectUri, { state: request.state ?? "", error: "access_denied" });
  }
  const granted = request.scopeNames.filter((name) => BASIC(name) || form[`grant.${name}`] === "1");
  const permissions = parseScope(granted.join(",")) ?? ["read"];
  const scope = granted.length ? granted.join(",") : "read";
  const code = await grantAuthorization(platform, {
    athleteId: w.athlete.id,
    applicationId: request.app.id,
    permissions,
    scope,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    prompted: true,
    audience: request.audience,
  });
  return redirectToClient(c, request.redirectUri, { state: request.state ?? "", code, scope });
}

/** The consent page, mounted at `/`: GET shows it (or skips it with approval_prompt=auto), POST records the decision. */
export function consentPages(platform: Platform): Hono {
  const pages = new Hono();
  // At the host root (auth_url) and under every API prefix, as clients address it relative to either.
  for (const path of oauthPaths("authorize")) {
    pages.get(path, (c) => consentPage(c, platform));
    pages.post(path, (c) => decide(c, platform));
  }
  return pages;
}
