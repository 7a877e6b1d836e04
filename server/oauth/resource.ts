import type { TokenAudience } from "../../events/application/audience.ts";

/**
 * RFC 8707 resource indicators: the two resources this server's tokens are for, named by URL —
 * the MCP endpoint (`<PUBLIC_URL>/mcp`, what the protected resource metadata advertises) and the
 * API (`<PUBLIC_URL>`, `/v3` or `/api/v3`). A token is bound to one of them (its audience).
 */

/** The MCP endpoint's URL: the resource MCP clients name (server/mcp). */
export function mcpResourceUrl(publicUrl: string): string {
  return new URL("/mcp", publicUrl).href;
}

const API_PATHS = new Set(["", "/", "/v3", "/v3/", "/api/v3", "/api/v3/"]);
const MCP_PATHS = new Set(["/mcp", "/mcp/"]);

/**
 * The audience a `resource` parameter names: undefined when none was sent, "invalid" for an
 * address that is not one of this server's resources (another origin, a query or fragment, a path
 * of neither), RFC 8707's invalid_target.
 */
export function audienceOf(resource: string | undefined, publicUrl: string): TokenAudience | undefined | "invalid" {
  if (resource === undefined || resource === "") return undefined;
  if (resource.length > 2048) return "invalid";
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return "invalid";
  }
  if (url.origin !== new URL(publicUrl).origin || url.search || url.hash || url.username || url.password) {
    return "invalid";
  }
  if (MCP_PATHS.has(url.pathname)) return "mcp";
  if (API_PATHS.has(url.pathname)) return "api";
  return "invalid";
}
