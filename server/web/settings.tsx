import { type Context, Hono } from "hono";
import { DomainError } from "../../events/decider.ts";
import { createApplication, regenerateClientSecret } from "../applications/commands.ts";
import { webActor } from "../actor.ts";
import { revokeAuthorization } from "../oauth/commands.ts";
import { type OwnApplication, ownApplication as ownApplicationOf } from "../../projections/applications/queries.ts";
import {
  authorizedApplicationName,
  authorizedApplications,
} from "../../projections/queries/authorized-applications.ts";
import type { Platform } from "../platform.ts";
import { knownWebApplicationId } from "../sessions/web-application.ts";
import { csrfRefused, formOf, web } from "./context.tsx";
import { redirectToSignIn as toSignIn } from "./redirect.ts";
import { Csrf, ErrorBox } from "./layout.tsx";
import { assistantPage } from "./assistant.tsx";

async function ownApplication(platform: Platform, athleteId: number): Promise<OwnApplication | undefined> {
  return await ownApplicationOf(platform.db, athleteId, await knownWebApplicationId(platform));
}

const PERMISSION_TEXT: Record<string, string> = {
  read: "View your public profile and public activities (public / read)",
  write: "Upload and change activities and your profile (write)",
  view_private: "View your private activities and data in privacy zones (view_private)",
};

function RegisterForm(props: { csrf: string; values: Record<string, string>; error?: string }) {
  const v = props.values;
  return (
    <div class="card">
      <h1>My API application</h1>
      <p class="muted">
        Register an application to use the API. You will get a client id, a client secret and a public access token.
      </p>
      <ErrorBox message={props.error} />
      <form method="post" action="/settings/api">
        <Csrf token={props.csrf} />
        <label for="name">Application name</label>
        <input type="text" id="name" name="name" value={v.name ?? ""} required maxlength={100} />
        <label for="website">Website</label>
        <input type="url" id="website" name="website" value={v.website ?? ""} placeholder="https://example.com" />
        <label for="description">Application description</label>
        <textarea id="description" name="description" maxlength={1000}>{v.description ?? ""}</textarea>
        <label for="callback_domain">Authorization callback domain</label>
        <input
          type="text"
          id="callback_domain"
          name="callback_domain"
          value={v.callback_domain ?? ""}
          required
          placeholder="example.com"
        />
        <p class="hint">
          redirect_uri must be on this domain or a sub-domain of it; localhost and 127.0.0.1 are always allowed.
        </p>
        <div class="actions">
          <button type="submit">Create application</button>
        </div>
      </form>
    </div>
  );
}

/** The hosts a self-registered client's redirect URIs point at (what the athlete can recognise). */
function redirectHosts(json: string | null): string {
  try {
    const uris = JSON.parse(json ?? "[]") as string[];
    return [...new Set(uris.map((u) => new URL(u).host))].join(", ");
  } catch {
    return "";
  }
}

function Hidden(props: { what: string }) {
  return <span class="muted">hidden — shown only once, when {props.what}</span>;
}

/** My API application (register, show credentials, regenerate the secret) and My apps (revoke). */
/** GET /settings/api: the athlete's own API application, or the form to register one. */
async function apiApplicationPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return toSignIn(c);
  const own = await ownApplication(platform, w.athlete.id);
  if (!own) return w.render("My API application", <RegisterForm csrf={w.csrf} values={{}} />);
  const taken = w.takeReveal();
  const reveal = taken?.applicationId === own.id ? taken : undefined;
  const flash = w.takeFlash();
  return w.render(
    "My API application",
    <>
      {flash ? <div class="notice" role="status">{flash}</div> : null}
      {reveal
        ? (
          <div class="notice" role="status">
            Copy the new credentials now: only their hashes are stored, so they cannot be shown again.
          </div>
        )
        : null}
      <div class="card">
        <h1>My API application</h1>
        <dl>
          <dt>Application name</dt>
          <dd id="app-name">{own.name}</dd>
          <dt>Website</dt>
          <dd>{own.website ?? <span class="muted">—</span>}</dd>
          <dt>Description</dt>
          <dd>{own.description ?? <span class="muted">—</span>}</dd>
          <dt>Callback domain</dt>
          <dd>{own.callback_domain}</dd>
          <dt>Client ID</dt>
          <dd>
            <span class="secret" id="client-id">{own.id}</span>
          </dd>
          <dt>Client Secret</dt>
          <dd>
            {reveal?.clientSecret
              ? <span class="secret" id="client-secret">{reveal.clientSecret}</span>
              : <Hidden what="the application is created or the secret regenerated" />}
          </dd>
          <dt>Your access token</dt>
          <dd>
            {reveal?.accessToken
              ? <span class="secret" id="access-token">{reveal.accessToken}</span>
              : <Hidden what="the application is created" />}
            <p class="hint">Public token for getting started (read permission, your own account, no expiry).</p>
          </dd>
        </dl>
        <form method="post" action="/settings/api/secret" class="actions">
          <Csrf token={w.csrf} />
          <button type="submit" class="secondary">Regenerate client secret</button>
        </form>
      </div>
    </>,
  );
}

/** POST /settings/api: registers the athlete's API application. */
async function registerApiApplication(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return toSignIn(c);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  if (await ownApplication(platform, w.athlete.id)) {
    return w.render(
      "My API application",
      <div class="card">
        <ErrorBox message="You already have an API application." />
      </div>,
      409,
    );
  }
  const website = (form.website ?? "").trim();
  if (website && !/^https?:\/\/\S+$/i.test(website)) {
    return w.render(
      "My API application",
      <RegisterForm csrf={w.csrf} values={form} error="The website must be an http(s) address." />,
      400,
    );
  }
  if ((form.name ?? "").length > 100 || (form.description ?? "").length > 1000) {
    return w.render(
      "My API application",
      <RegisterForm csrf={w.csrf} values={form} error="The name or description is too long." />,
      400,
    );
  }
  try {
    const created = await createApplication(platform, {
      name: form.name ?? "",
      ownerId: w.athlete.id,
      callbackDomain: form.callback_domain ?? "",
      website: website || null,
      description: (form.description ?? "").trim() || null,
    }, webActor(w.athlete.id));
    w.leaveReveal({
      applicationId: created.client_id,
      clientSecret: created.client_secret,
      accessToken: created.access_token,
    });
    return c.redirect("/settings/api", 303);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const message = error.field === "name"
      ? "Please enter a name."
      : "Please enter a valid callback domain (for example example.com).";
    return w.render("My API application", <RegisterForm csrf={w.csrf} values={form} error={message} />, 400);
  }
}

/** POST /settings/api/secret: a new client secret, shown once. */
async function newClientSecret(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return toSignIn(c);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  const own = await ownApplication(platform, w.athlete.id);
  if (!own) return c.redirect("/settings/api", 303);
  const clientSecret = await regenerateClientSecret(platform, own.id, webActor(w.athlete.id));
  w.leaveReveal({ applicationId: own.id, clientSecret });
  w.leaveFlash("The client secret was regenerated; the old one no longer works.");
  return c.redirect("/settings/api", 303);
}

/** GET /settings/apps: the applications the athlete authorized. */
async function authorizedAppsPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return toSignIn(c);
  const rows = await authorizedApplications(platform.db, w.athlete.id, await knownWebApplicationId(platform));
  const flash = w.takeFlash();
  return w.render(
    "My apps",
    <>
      {flash ? <div class="notice" role="status">{flash}</div> : null}
      <div class="card">
        <h1>My apps</h1>
        {rows.length === 0
          ? <p class="muted" id="no-apps">You have not authorized any application.</p>
          : (
            <table class="stacked">
              <thead>
                <tr>
                  <th>Application</th>
                  <th>Access</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr data-application={String(row.id)}>
                    <td>
                      <strong>{row.name}</strong>
                      {row.registration === "dynamic"
                        ? (
                          <div class="hint" data-kind="assistant">
                            AI assistant connected through /mcp (it registered itself; returns to{" "}
                            {redirectHosts(row.redirect_uris)})
                          </div>
                        )
                        : null}
                      {row.website ? <div class="hint">{row.website}</div> : null}
                      {row.authorized_at
                        ? <div class="hint">Authorized {new Date(row.authorized_at).toISOString().slice(0, 10)}</div>
                        : null}
                    </td>
                    <td>
                      <ul class="scopes">
                        {row.permissions.split(",").filter(Boolean).map((p) => <li>{PERMISSION_TEXT[p] ?? p}</li>)}
                      </ul>
                      {row.scope ? <div class="hint">Scopes: {row.scope}</div> : null}
                    </td>
                    <td>
                      <form method="post" action={`/settings/apps/${row.id}/revoke`}>
                        <Csrf token={w.csrf} />
                        <button type="submit" class="danger">Revoke</button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </div>
    </>,
  );
}

/** POST /settings/apps/:id/revoke: every token of the pair revoked. */
async function revokeApp(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return toSignIn(c);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  const id = c.req.param("id") ?? "";
  if (!/^\d{1,15}$/.test(id)) return c.redirect("/settings/apps", 303);
  const name = await authorizedApplicationName(platform.db, w.athlete.id, Number(id));
  if (name !== undefined) {
    await revokeAuthorization(platform, w.athlete.id, Number(id), "revoked on My apps");
    w.leaveFlash(`Access for ${name} was revoked.`);
  }
  return c.redirect("/settings/apps", 303);
}

/** My API application and My apps, mounted at `/settings`. */
export function settingsPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/api", (c) => apiApplicationPage(c, platform));
  pages.post("/api", (c) => registerApiApplication(c, platform));
  pages.post("/api/secret", (c) => newClientSecret(c, platform));
  pages.get("/apps", (c) => authorizedAppsPage(c, platform));
  pages.get("/assistant", (c) => assistantPage(c, platform));
  pages.post("/apps/:id/revoke", (c) => revokeApp(c, platform));
  return pages;
}
