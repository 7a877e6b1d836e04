import type { Context } from "hono";
import { parseJsonExact } from "../../shared/json.ts";
import type { Auth } from "../http/auth.ts";
import { toApiError } from "../http/fault.ts";
import { JSON_TYPE } from "../http/conventions.ts";
import { parseWith } from "../http/input.ts";
import { type AnyRoute, routePermission } from "../http/route.ts";
import type { Platform } from "../platform.ts";

/**
 * A tool answers through the API route it stands for: the route's own input schemas, permission
 * check and handler (the same read models, privacy engine and commands as a request to /v3), not
 * a copy of them. What differs is only the edge: arguments arrive as a tool's JSON instead of a
 * path and a query string, and a refusal becomes a tool error that says what to change.
 */

/** A refusal a tool reports to the model (MCP `isError`), never an HTTP error. */
export class ToolError extends Error {}

export interface ToolContext {
  c: Context;
  platform: Platform;
  routes: readonly AnyRoute[];
  /** The token's athlete and permissions, with the MCP feature's own application flags (docs/mcp.md). */
  auth: Auth;
  requestId: string;
}

/** The route of the table a tool calls; a missing one is a programming error (tests/unit/mcp-tools.test.ts). */
export function findRoute(routes: readonly AnyRoute[], method: AnyRoute["method"], path: string): AnyRoute {
  const route = routes.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`no route ${method} ${path} in the route table`);
  return route;
}

/** Path and query values as a URL would carry them (the routes' schemas parse strings). */
function asStrings(values: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    if (value === undefined || value === null) continue;
    out[key] = typeof value === "boolean" ? (value ? "true" : "false") : String(value);
  }
  return out;
}

const PERMISSION_WORDS: Record<string, string> = {
  write: "changing your log (the write scope: 'Rename, describe and change the sport of your activities…')",
  view_private: "private data (the activity:read_all scope)",
  read: "reading",
};

/** What to tell the model about a refused call: the API's error triples in words, with what to change. */
export function refusalText(error: unknown): string | undefined {
  const api = toApiError(error);
  if (api.status >= 500) return undefined;
  const fields = api.errors.map((e) => `${e.resource} ${e.field}: ${e.code}`).join("; ");
  switch (api.status) {
    case 400:
      return `Invalid argument (${fields}). Change the argument named and call again.`;
    case 401:
      return `Not permitted (${fields}). The athlete did not grant this connection that scope; they can reconnect and tick it on the consent page.`;
    case 403:
      return `Refused (${fields}). This is not allowed for this athlete or on this record; do not retry with the same arguments.`;
    case 404:
      return `Not found (${fields}): no such record visible to this athlete. Check the id (list tools give the ids the others accept).`;
    case 409:
      return `Conflict (${fields}): it was already done or changed meanwhile; read it again before retrying.`;
    case 413:
      return "Too large: send a smaller value.";
    default:
      return `${api.message} (${fields})`;
  }
}

/**
 * Calls a route of the table as the token's athlete: its permission, its zod schemas for params,
 * query and body (the API's 400s become tool errors naming the field), then its handler.
 */
export async function callRoute(
  ctx: ToolContext,
  method: AnyRoute["method"],
  path: string,
  input: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> } = {},
): Promise<unknown> {
  const route = findRoute(ctx.routes, method, path);
  const needed = routePermission(route);
  if (needed && !ctx.auth.permissions.has(needed)) {
    throw new ToolError(
      `This connection may not do this: it needs permission for ${
        PERMISSION_WORDS[needed] ?? needed
      }, which the athlete did not grant. Ask them to reconnect the assistant and tick it on the consent page.`,
    );
  }
  const params = route.params ? parseWith(route.params, asStrings(input.params), route.resource) : {};
  const query = route.query ? parseWith(route.query, asStrings(input.query), route.resource) : {};
  const body = route.body ? parseWith(route.body, input.body ?? {}, route.resource) : {};
  const result = await route.handler({
    c: ctx.c,
    platform: ctx.platform,
    auth: ctx.auth,
    // Tools answer in the spec's representations (/v3); the mount's rule refusing combined paging
    // parameters is /v3's edge and not a tool's: a tool may page a date window.
    dialect: "spec",
    params,
    query,
    body,
    requestId: ctx.requestId,
  });
  if (result instanceof Response) {
    // JSON a route serialised itself (GET /v3/activities/:id keeps its text: detail-cache.ts).
    if (result.headers.get("content-type") === JSON_TYPE) return parseJsonExact(await result.text());
    throw new Error(`${method} ${path} answers a file, not JSON: no tool may call it`);
  }
  return result;
}
