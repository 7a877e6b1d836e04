import { SCOPE_PERMISSIONS } from "../http/auth.ts";
import { mcpResourceUrl } from "./resource.ts";

/**
 * The discovery documents MCP clients read before they sign an athlete in (MCP authorization,
 * 2025-06-18 and 2025-11-25): this server is both the protected resource (/mcp) and its
 * authorization server (the OAuth 2.0 server of server/oauth, the same one third-party apps use).
 */

/** The scopes an MCP client is offered: reading (public and private), and changing activities. */
export const MCP_SCOPES = ["read", "activity:read_all", "activity:write"] as const;

/** Where a resource's metadata lives (RFC 9728 §3.1: the well-known segment before the resource's path). */
export function protectedResourceMetadataUrl(publicUrl: string): string {
  return new URL("/.well-known/oauth-protected-resource/mcp", publicUrl).href;
}

/** The authorization server's issuer identifier: the server's public URL, without a trailing slash. */
export function issuerOf(publicUrl: string): string {
  return new URL(publicUrl).origin;
}

/** RFC 9728 Protected Resource Metadata of the MCP endpoint. */
export function protectedResourceMetadata(publicUrl: string) {
  return {
    resource: mcpResourceUrl(publicUrl),
    authorization_servers: [issuerOf(publicUrl)],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Training log (MCP)",
    resource_documentation: new URL("/settings/assistant", publicUrl).href,
  };
}

/** RFC 8414 Authorization Server Metadata of this server's OAuth 2.0 endpoints. */
export function authorizationServerMetadata(publicUrl: string) {
  const at = (path: string) => new URL(path, publicUrl).href;
  return {
    issuer: issuerOf(publicUrl),
    authorization_endpoint: at("/oauth/authorize"),
    token_endpoint: at("/oauth/token"),
    registration_endpoint: at("/oauth/register"),
    scopes_supported: Object.keys(SCOPE_PERMISSIONS),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    code_challenge_methods_supported: ["S256"],
    service_documentation: at("/docs"),
  };
}
