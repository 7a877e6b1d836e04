import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { openApiDocument } from "../http/openapi.ts";
import { documentedPaths } from "../route-table.ts";
import { OAUTH_SCOPES } from "../http/openapi-extras.ts";
import type { AnyRoute } from "../http/route.ts";
import { pagePolicy } from "../http/security-headers.ts";
import type { Platform } from "../platform.ts";
import { escapeHtml } from "./app/shell.ts";

/**
 * /docs: the OpenAPI document (/v3/openapi.json) rendered by Swagger UI, vendored from the npm
 * package swagger-ui-dist (server/web/docs-assets/, Apache-2.0; no CDN, no outside request), with a
 * plain route table for browsers without scripts; /docs/connect: the "Connect your app" guide.
 */

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": JS,
  "swagger-ui.css": CSS,
  "docs.js": JS,
  "docs.css": CSS,
};
const cache = new Map<string, Uint8Array>();

function asset(name: string): Uint8Array | undefined {
  // Own names only: "constructor" or "__proto__" is not an asset (Object.prototype's members).
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  let bytes = cache.get(name);
  if (!bytes) {
    cache.set(
      name,
      bytes = new Uint8Array(readFileSync(fileURLToPath(new URL(`./docs-assets/${name}`, import.meta.url)))),
    );
  }
  return bytes;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The docs pages' policy (written by the security-headers middleware with nosniff and frame protection). */
const POLICY = { csp: CSP, referrerPolicy: "same-origin" } as const;

function fieldsOf(schema: unknown): string[] {
  try {
    return Object.keys(
      (z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }).properties ?? {}) as object,
    );
  } catch {
    return [];
  }
}

/** Every route by tag, as a table (what /docs shows without scripts). */
function routeTable(routes: AnyRoute[]): string {
  const byTag = new Map<string, AnyRoute[]>();
  for (const route of routes) byTag.set(route.tag, [...(byTag.get(route.tag) ?? []), route]);
  return [...byTag.entries()].map(([tag, list]) => {
    const rows = list.map((r) => {
      const scope = r.auth === "token" ? r.permission ?? "read" : r.auth === "optional" ? "optional" : "—";
      const params = [r.params, r.query, r.body].filter(Boolean).flatMap(fieldsOf).join(", ");
      return `<tr><td><code>${r.method}</code></td><td><code>${escapeHtml(r.path)}</code></td><td>${
        escapeHtml(r.summary)
      }</td><td>${escapeHtml(params)}</td><td>${scope}</td></tr>`;
    }).join("\n");
    return `<h2>${
      escapeHtml(tag)
    }</h2><table><thead><tr><th></th><th>Path</th><th>What it does</th><th>Inputs</th><th>Scope</th></tr></thead><tbody>${rows}</tbody></table>`;
  }).join("\n");
}

/**
 * Every operation of the OpenAPI document by tag (method, path, summary, operation id), drawn by the
 * server: the reference is readable at once, while Swagger UI (≈ 1.7 MB of script, then the
 * document's resolution and some 100 operations drawn: 2-4 s on a busy 2-core machine) gets ready
 * hidden; docs.js shows it in this list's place when it has drawn everything.
 */
function operationList(doc: Record<string, unknown>): string {
  const byTag = new Map<string, string[]>();
  for (const tag of (doc.tags ?? []) as { name: string }[]) byTag.set(tag.name, []);
  for (
    const [path, item] of Object.entries(
      doc.paths as Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[] }>>,
    )
  ) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "default";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(
        `<li class="ref-op ref-${method}"><span class="ref-method">${method.toUpperCase()}</span><code class="ref-path">${
          escapeHtml(path)
        }</code>` +
          `<span class="ref-summary">${escapeHtml(op.summary ?? "")}</span><span class="ref-id">${
            escapeHtml(op.operationId ?? "")
          }</span></li>`,
      );
    }
  }
  return [...byTag.entries()].filter(([, ops]) => ops.length)
    .map(([tag, ops]) =>
      `<section aria-labelledby="ref-${escapeHtml(tag)}"><h2 id="ref-${escapeHtml(tag)}">${escapeHtml(tag)}</h2><ul>${
        ops.join("")
      }</ul></section>`
    )
    .join("\n");
}

function frame(title: string, body: string, scripts: string[] = [], head = ""): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="stylesheet" href="/docs/assets/docs.css">${head}</head>
<body><header class="docs-bar"><nav aria-label="API documentation">
<a class="brand" href="/docs">API v3 reference</a>
<a href="/docs/connect">Connect your app</a>
<a href="/v3/openapi.json">openapi.json</a>
<a href="/settings/api">My API application</a>
</nav></header>
${body}
${scripts.map((s) => `<script defer src="/docs/assets/${s}"></script>`).join("\n")}
</body></html>`;
}

function referencePage(routes: AnyRoute[], publicUrl: string): string {
  const doc = openApiDocument(routes, publicUrl, documentedPaths);
  return frame(
    "API v3 reference",
    `<div class="reference">
<main id="reference-list" class="ref-static" aria-label="API reference"><h1>API v3 reference</h1>
<p class="ref-loading" role="status">Every operation is listed below; the interactive reference (parameters, models) opens in its place in a moment.</p>
${operationList(doc)}</main>
<div id="swagger-ui" hidden></div>
<noscript><div class="guide fallback"><h1>API v3 reference</h1><p>Machine-readable: <a href="/v3/openapi.json">/v3/openapi.json</a>.
Every /v3 path (the spec's contract) also answers under /api/v3 in Strava's dialect (<a href="/docs/connect#dialects">the differences</a>). Errors: <code>{"message", "errors":[{"resource","field","code"}]}</code>.
New here? <a href="/docs/connect">Connect your app</a>.</p>
${routeTable(routes)}</div></noscript></div>`,
    ["docs.js"],
    `<noscript><style>#reference-list{display:none}</style></noscript>`,
  );
}

function connectPage(publicUrl: string, publicApiUrl?: string): string {
  const base = publicUrl.replace(/\/+$/, "");
  const host = new URL(base).host;
  const apiBase = (publicApiUrl ?? "").replace(/\/+$/, "");
  const scopes = Object.entries(OAUTH_SCOPES)
    .map(([name, what]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(what)}</td></tr>`).join("");
  const authorize = `${
    escapeHtml(base)
  }/oauth/authorize?client_id=YOUR_CLIENT_ID&amp;response_type=code&amp;redirect_uri=http://localhost:3000/callback&amp;approval_prompt=auto&amp;scope=read,activity:read_all,activity:write&amp;state=RANDOM`;
  return frame(
    "Connect your app",
    `<main class="guide">
<h1>Connect your app</h1>
<p>This server speaks Strava's v3 API and its OAuth 2.0 flow, so an app written for Strava works here once it
points at <code>${escapeHtml(base)}</code>: API base <code>${escapeHtml(base)}/api/v3</code>${
      apiBase ? ` (or the API host <code>${escapeHtml(apiBase)}</code>, without <code>/api/v3</code>)` : ""
    }, where the API answers as Strava does.
Five steps: register, authorize, exchange the code, refresh, call. The <a href="/docs">API reference</a> lists every operation.</p>
<p id="dialects">The same API answers under <code>/v3</code> too, exactly as this project's API contract writes it — for apps written
to the contract rather than to Strava. The two differ in a few places, each listed with its reason in
<em>docs/app-developers.md, "Two dialects"</em>: a summary activity carries <code>device_name</code> only under <code>/api/v3</code>;
<code>before</code>, <code>after</code> and <code>page</code> combine under <code>/api/v3</code> (strava-offline and stravalib send them together)
and are a 400 under <code>/v3</code>; a club's activities are Strava's <code>ClubActivity</code> under <code>/api/v3</code> and summary
activities under <code>/v3</code>; a string without a value is <code>null</code> under <code>/api/v3</code> and <code>""</code> under <code>/v3</code>.
<strong>Point Strava's tools at <code>/api/v3</code>${apiBase ? " or the API host" : ""}.</strong></p>

<h2 id="register">1. Register your application</h2>
<ol class="steps">
<li>Sign in and open <a href="/settings/api">Settings → My API application</a>.</li>
<li>Give it a name and an <strong>authorization callback domain</strong> (your <code>redirect_uri</code> must be on it; <code>localhost</code> and <code>127.0.0.1</code> are always allowed).</li>
<li>Keep the <strong>client id</strong> and <strong>client secret</strong> it shows (the secret is shown once; you can regenerate it).</li>
</ol>

<h2 id="authorize">2. Send the athlete to authorize</h2>
<p>Open this address in the athlete's browser. They sign in, see the scopes you ask for and approve:</p>
<pre class="wrap" tabindex="0"><code>${authorize}</code></pre>
<p>On approval the server redirects to <code>redirect_uri?state=RANDOM&amp;code=CODE&amp;scope=…</code> with the scopes actually granted
(the athlete may untick some). On refusal: <code>?error=access_denied</code>. The code is valid for 10 minutes, once.
Public clients add PKCE: <code>code_challenge</code> and <code>code_challenge_method=S256</code>, then <code>code_verifier</code> in step 3.</p>
<table class="fit"><thead><tr><th>Scope</th><th>Grants</th></tr></thead><tbody>${scopes}</tbody></table>

<h2 id="exchange">3. Exchange the code for tokens</h2>
<pre tabindex="0"><code>curl -X POST ${escapeHtml(base)}/oauth/token \\
  -d client_id=YOUR_CLIENT_ID -d client_secret=YOUR_CLIENT_SECRET \\
  -d code=CODE -d grant_type=authorization_code</code></pre>
<p>The answer (<code>TokenResponse</code> in the reference) holds <code>access_token</code>, <code>refresh_token</code>,
<code>expires_at</code> (Unix seconds, 6 hours ahead) and the athlete:</p>
<pre tabindex="0"><code>{"token_type":"Bearer","expires_at":1715021600,"expires_in":21600,
 "refresh_token":"e5n5…","access_token":"a4b9…","athlete":{"id":134815,"firstname":"Ann",…}}</code></pre>

<h2 id="refresh">4. Refresh before it expires</h2>
<pre tabindex="0"><code>curl -X POST ${escapeHtml(base)}/oauth/token \\
  -d client_id=YOUR_CLIENT_ID -d client_secret=YOUR_CLIENT_SECRET \\
  -d grant_type=refresh_token -d refresh_token=REFRESH_TOKEN</code></pre>
<p>Store the <code>refresh_token</code> of every answer: it may change. The athlete can revoke your access at any time
(<em>My apps</em> in their settings); your app can too with <code>POST /oauth/deauthorize</code>.</p>

<h2 id="call">5. Call the API</h2>
<pre tabindex="0"><code>curl -H "Authorization: Bearer ACCESS_TOKEN" ${escapeHtml(base)}/api/v3/athlete
curl -H "Authorization: Bearer ACCESS_TOKEN" "${escapeHtml(base)}/api/v3/athlete/activities?per_page=30"
curl -H "Authorization: Bearer ACCESS_TOKEN" -F file=@ride.fit -F data_type=fit ${
      escapeHtml(base)
    }/api/v3/uploads</code></pre>
<p>Poll <code>GET /api/v3/uploads/{id}</code> until <code>activity_id</code> (or <code>error</code>) is set. Errors answer
<code>{"message", "errors":[{"resource","field","code"}]}</code> with a 4xx status; past the rate limit (headers <code>X-RateLimit-Limit</code> and <code>X-RateLimit-Usage</code>:
15 minutes, day) the answer is 403 <code>Rate Limit Exceeded</code>.</p>

<h2 id="strava-tools">Use your Strava tools here</h2>
<p>Tools written for Strava talk to this server unchanged once they reach it instead of <code>www.strava.com</code>.
First make an application (step 1) and get tokens (steps 2–3); then, per tool:</p>
<table class="fit"><thead><tr><th>Tool</th><th>How to point it here</th></tr></thead><tbody>
<tr><td>stravalib (Python), and tools built on it (running_page, geo-activity-playground)</td><td>Its protocol has the host as a setting:
<pre tabindex="0"><code>from stravalib import Client
client = Client(access_token=ACCESS_TOKEN, refresh_token=REFRESH_TOKEN, token_expires=EXPIRES_AT)
client.protocol.server = "${escapeHtml(host)}"   # https://${escapeHtml(host)}/api/v3/… and /oauth/…</code></pre>
stravalib always speaks HTTPS: this server must be behind TLS. In a tool that creates its own <code>Client</code>, set it where the client is made (one line).</td></tr>
<tr><td>strava-offline</td><td>Its addresses are written into its code (<code>https://www.strava.com/api/v3/…</code>, <code>/oauth/token</code>): use the proxy recipe below, and
<code>REQUESTS_CA_BUNDLE="$(mkcert -CAROOT)/rootCA.pem"</code> so Python trusts the local certificate. Without a proxy: start it through a
few lines of Python that give every <code>requests</code> session a transport adapter for <code>https://www.strava.com/</code> sending the
same request to <code>${
      escapeHtml(base)
    }</code> (this project's tests run it so: <code>tests/dropin/python/strava_here.py</code>;
<code>python strava_here.py -m strava_offline sqlite</code>).</td></tr>
<tr><td>Strava MCP server (AI assistants; r-huijts/strava-mcp)</td><td>Its base URL is fixed in its code (<code>https://www.strava.com/api/v3</code>, token refresh at <code>/oauth/token</code>): use the proxy recipe below
with <code>NODE_EXTRA_CA_CERTS="$(mkcert -CAROOT)/rootCA.pem"</code> in the MCP server's environment — or, without touching
<code>/etc/hosts</code>, any HTTPS proxy that answers <code>www.strava.com</code> with that certificate, named in <code>HTTPS_PROXY</code> (its
Node follows it) — or change that one line in its <code>stravaClient</code> to <code>${
      escapeHtml(base)
    }/api/v3</code> (and the refresh
address to <code>${
      escapeHtml(base)
    }/oauth/token</code>). Every one of its tools that calls the API (21 of the 24 of version 1.2.1)
is answered here, <code>list-athlete-routes</code> (<code>GET /athlete/routes</code>) included.</td></tr>
<tr><td>Home Assistant's Strava integration, other tools with a fixed address</td><td>The proxy recipe below on the machine that runs them (Python: <code>REQUESTS_CA_BUNDLE</code>; Node: <code>NODE_EXTRA_CA_CERTS</code>; others: add the mkcert root to the system store, <code>mkcert -install</code>).</td></tr>
<tr><td>A tool moved to <code>https://api-v3.strava.com</code> (no <code>/v3</code> in its paths)</td><td>Point it at this server's API host${
      apiBase ? ` <code>${escapeHtml(apiBase)}</code>` : " (the operator sets <code>PUBLIC_API_URL</code>)"
    }: the same paths answer there, in Strava's dialect (<code>/athlete</code> is <code>/api/v3/athlete</code>).</td></tr>
<tr><td>Your own script</td><td>Replace <code>https://www.strava.com/api/v3</code> with <code>${
      escapeHtml(base)
    }/api/v3</code> and <code>https://www.strava.com/oauth/</code> with <code>${
      escapeHtml(base)
    }/oauth/</code>.</td></tr>
</tbody></table>
<p><strong>The proxy recipe</strong> (for a tool whose address cannot be changed), on the machine that runs the tool:</p>
<pre tabindex="0"><code># 1. Send Strava's names to this machine
echo "127.0.0.1 www.strava.com api-v3.strava.com" | sudo tee -a /etc/hosts
# 2. A locally trusted certificate for them
mkcert -install &amp;&amp; mkcert www.strava.com api-v3.strava.com
# 3. Caddy forwards them to this server (Caddyfile)
www.strava.com {
  tls www.strava.com+1.pem www.strava.com+1-key.pem
  reverse_proxy ${escapeHtml(base)} {
    header_up Host {upstream_hostport}
  }
}
api-v3.strava.com {
  tls www.strava.com+1.pem www.strava.com+1-key.pem
${apiBase ? "" : "  rewrite * /api/v3{uri}\n"}  reverse_proxy ${escapeHtml(apiBase || base)} {
    header_up Host {upstream_hostport}
  }
}</code></pre>
<p>Undo it by removing the <code>/etc/hosts</code> line. What was tried how: the server's tests run the tools themselves, unchanged —
stravalib 2.5.0 (uploads, lists, athlete, clubs, segments, OAuth exchange and refresh, deauthorization) and strava-offline 1.1.1
(full and incremental sync into its database) through the <code>requests</code> adapter above, and the Strava MCP server (every API
tool, and a token refresh) through an HTTPS proxy with a certificate from a local authority its Node is told to trust — against
<code>/api/v3</code>; the API host is tested with a <code>Host</code> header as a proxy sends it. Caddy and mkcert themselves were not run
where these pages were written.</p>

<h2 id="generated">A typed client from the document</h2>
<p>The document at <a href="/v3/openapi.json">/v3/openapi.json</a> has a response schema for every operation, so standard
generators give typed clients. With TypeScript:</p>
<pre tabindex="0"><code>npx openapi-typescript ${escapeHtml(base)}/v3/openapi.json -o api.d.ts

import createClient from "openapi-fetch";
import type { paths } from "./api.d.ts";
const client = createClient&lt;paths&gt;({ baseUrl: "${
      escapeHtml(base)
    }", headers: { Authorization: \`Bearer \${token}\` } });
const { data: athlete } = await client.GET("/v3/athlete");   // typed DetailedAthlete</code></pre>
<p>Webhooks: <code>POST /api/v3/push_subscriptions</code> with your client id and secret and a callback URL that echoes
<code>hub.challenge</code>; see <em>Webhooks</em> in the reference.</p>
</main>`,
  );
}

/** GET /docs/assets/:name: the reference UI's vendored files. */
function docsAsset(c: Context): Response {
  const name = c.req.param("name") ?? "";
  const bytes = asset(name);
  if (!bytes) return c.notFound() as Response;
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    "content-type": ASSETS[name],
    "cache-control": "public, max-age=3600",
  });
}

/** /docs (the API reference), /docs/connect and /docs/assets/*, mounted at `/docs`. */
export function docsPages(platform: Platform, routes: AnyRoute[]): Hono {
  const pages = new Hono();
  // Drawn once: the routes and the public URL do not change while the server runs.
  let reference: string | undefined;
  pages.get("/", (c) => {
    pagePolicy(c, POLICY);
    return c.html(reference ??= referencePage(routes, platform.config.publicUrl), 200);
  });
  pages.get("/connect", (c) => {
    pagePolicy(c, POLICY);
    return c.html(connectPage(platform.config.publicUrl, platform.config.publicApiUrl), 200);
  });
  pages.get("/assets/:name", docsAsset);
  return pages;
}
