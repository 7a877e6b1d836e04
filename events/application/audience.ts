import { z } from "zod";

/**
 * Who a token is for (RFC 8707 resource indicators): "api" — the /v3 API (every token and grant
 * recorded before the audience was); "mcp" — the MCP endpoint /mcp (server/mcp). A token of one
 * audience is refused by the other.
 */
export const tokenAudience = z.enum(["api", "mcp"]);
export type TokenAudience = z.infer<typeof tokenAudience>;

/** Upcaster: version 1 of an event that carried no audience was the API's; version 2 names it. */
export const apiAudience = (data: Record<string, unknown>): Record<string, unknown> => ({ ...data, audience: "api" });
