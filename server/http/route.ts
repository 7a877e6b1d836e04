import type { Context } from "hono";
import type { z } from "zod";
import type { Platform } from "../platform.ts";
import type { Auth, Permission } from "./auth.ts";
import type { Dialect } from "./dialect.ts";

/**
 * How a route authenticates:
 * - "token": an athlete access token with `permission` (default read); 401 without.
 * - "optional": a token is used when present (e.g. public pages), none is required.
 * - "none": no token (OAuth endpoints, web pages, push subscriptions with client credentials).
 */
export type RouteAuth = "token" | "optional" | "none";

export interface HandlerInput<P, Q, B, A extends RouteAuth> {
  c: Context;
  platform: Platform;
  auth: A extends "token" ? Auth : Auth | null;
  params: P;
  query: Q;
  body: B;
  /** The contract this request is answered by: the spec's on /v3, Strava's on /api/v3 and the API host. */
  dialect: Dialect;
  requestId: string;
}

export interface RouteSpec<P, Q, B, A extends RouteAuth> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Hono path under the host root, e.g. "/v3/activities/:id". /v3 routes also answer under /api/v3 (Strava's dialect). */
  path: string;
  summary: string;
  /** OpenAPI tag: the spec's resource family. */
  tag: string;
  auth: A;
  /** What the token needs (auth "token" only); the one table the scope check reads. */
  permission?: Permission;
  /** The resource named in error triples ("Activity", "Club", …). */
  resource: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /**
   * Query parameters the spec says cannot be combined ("before, after and page cannot be combined"):
   * on /v3 two or more of them are a 400 naming each; Strava's dialect combines them (the mount).
   */
  exclusive?: readonly string[];
  /** Status of a successful answer (default 200). */
  status?: number;
  /** Extra OpenAPI notes. */
  description?: string;
  /** Schema of the successful answer's body (OpenAPI response schema; the family's schema.ts). */
  response?: z.ZodType;
  handler(input: HandlerInput<P, Q, B, A>): Promise<unknown>;
}

// deno-lint-ignore no-explicit-any
export type AnyRoute = RouteSpec<any, any, any, RouteAuth>;

/** Declares a route; the app factory mounts it with auth, scope, validation and conventions. */
export function defineRoute<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = Record<string, never>,
  A extends RouteAuth = "token",
>(
  spec: RouteSpec<P, Q, B, A>,
): AnyRoute {
  return spec as AnyRoute;
}

/** The permission a route needs (read when not declared). */
export function routePermission(route: AnyRoute): Permission | null {
  return route.auth === "token" ? route.permission ?? "read" : null;
}
