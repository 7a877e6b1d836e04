import { z } from "zod";

/**
 * RFC 7591 dynamic client registration, the metadata's rules (the command is
 * server/applications/commands.ts registerClient): a name (or "MCP client"), 1–5 redirect URIs
 * each https (any host) or http on a loopback address (localhost, 127.0.0.1, [::1]; its port may
 * differ at authorization, RFC 8252 §7.3), never a fragment, user info or a control character;
 * the authorization-code grant (with refresh); client authentication "none" (a public client, the
 * default here as MCP clients register) or a client secret.
 */

export const MAX_REDIRECT_URIS = 5;
const MAX_URI = 2000;

/** An RFC 7591 §3.2.2 error: `error` and a description that says what to change. */
export class RegistrationError extends Error {
  constructor(readonly error: "invalid_redirect_uri" | "invalid_client_metadata", readonly description: string) {
    super(description);
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Is this a loopback redirect URI (http on localhost, 127.0.0.1 or [::1])? */
export function isLoopbackRedirect(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK.has(url.hostname.toLowerCase());
}

/** The parsed URL of an acceptable redirect URI, or a reason it is not. */
function checkRedirectUri(value: unknown): URL | string {
  if (typeof value !== "string" || value.length === 0) return "a redirect URI must be a non-empty string";
  if (value.length > MAX_URI) return `a redirect URI must be at most ${MAX_URI} characters`;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(value)) return "a redirect URI must not contain spaces, controls or backslashes";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value} is not an absolute URL`;
  }
  if (url.hash || value.includes("#")) return `${value} must not have a fragment`;
  if (url.username || url.password) return `${value} must not carry user information`;
  if (url.protocol === "https:") return url;
  if (isLoopbackRedirect(url)) return url;
  return `${value} must be https, or http on localhost, 127.0.0.1 or [::1]`;
}

/** The redirect URI as registered matches the one presented (loopback: any port, RFC 8252 §7.3). */
export function redirectMatches(registered: readonly string[], presented: string): boolean {
  const url = checkRedirectUri(presented);
  if (typeof url === "string") return false;
  return registered.some((r) => {
    if (r === presented) return true;
    const reg = new URL(r);
    if (!isLoopbackRedirect(reg) || !isLoopbackRedirect(url)) return false;
    return reg.hostname === url.hostname && reg.pathname === url.pathname && reg.search === url.search;
  });
}

export interface ClientMetadata {
  name: string;
  clientUri: string | null;
  redirectUris: string[];
  tokenEndpointAuthMethod: "none" | "client_secret_post" | "client_secret_basic";
  softwareId: string | null;
  softwareVersion: string | null;
  /** The scope asked for, as sent (the consent page decides what is granted). */
  scope: string | null;
}

const text = (max: number) => z.string().max(max).optional();

const request = z.object({
  redirect_uris: z.array(z.unknown()).optional(),
  client_name: text(200),
  client_uri: text(MAX_URI),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: text(1000),
  software_id: text(200),
  software_version: text(100),
}).passthrough();

/** Checks a registration request's metadata (JSON already parsed); throws RegistrationError. */
export function checkClientMetadata(body: unknown): ClientMetadata {
  const parsed = request.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegistrationError(
      "invalid_client_metadata",
      `${issue.path.join(".") || "the body"}: ${issue.message} (send a JSON object of RFC 7591 client metadata)`,
    );
  }
  const m = parsed.data;
  const uris = m.redirect_uris ?? [];
  if (uris.length === 0) {
    throw new RegistrationError("invalid_redirect_uri", "redirect_uris must list at least one URI");
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new RegistrationError("invalid_redirect_uri", `redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs`);
  }
  const redirectUris: string[] = [];
  for (const uri of uris) {
    const checked = checkRedirectUri(uri);
    if (typeof checked === "string") throw new RegistrationError("invalid_redirect_uri", checked);
    redirectUris.push(uri as string);
  }
  const grants = m.grant_types ?? ["authorization_code"];
  const unknownGrant = grants.find((g) => g !== "authorization_code" && g !== "refresh_token");
  if (unknownGrant !== undefined || !grants.includes("authorization_code")) {
    throw new RegistrationError(
      "invalid_client_metadata",
      `grant_types must be authorization_code (and refresh_token)${unknownGrant ? `, not ${unknownGrant}` : ""}`,
    );
  }
  const responses = m.response_types ?? ["code"];
  if (responses.length !== 1 || responses[0] !== "code") {
    throw new RegistrationError("invalid_client_metadata", 'response_types must be ["code"]');
  }
  const method = m.token_endpoint_auth_method ?? "none";
  if (method !== "none" && method !== "client_secret_post" && method !== "client_secret_basic") {
    throw new RegistrationError(
      "invalid_client_metadata",
      "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic",
    );
  }
  let clientUri: string | null = null;
  if (m.client_uri) {
    const url = URL.canParse(m.client_uri) ? new URL(m.client_uri) : undefined;
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
      throw new RegistrationError("invalid_client_metadata", "client_uri must be an http(s) URL");
    }
    clientUri = url.href;
  }
  // deno-lint-ignore no-control-regex
  const name = (m.client_name ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, 100);
  return {
    name: name || "MCP client",
    clientUri,
    redirectUris,
    tokenEndpointAuthMethod: method,
    softwareId: m.software_id ?? null,
    softwareVersion: m.software_version ?? null,
    scope: m.scope ?? null,
  };
}
