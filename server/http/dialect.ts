/**
 * Which contract a request is answered by, decided once, at the edge, from the path it came in on:
 *
 * - `spec`: `/v3/…`, the API contract (`../shared/spec/api-v3.md`), exactly: a summary omits what the
 *   spec's summary omits; parameters the spec says cannot be combined are a 400 naming them.
 * - `strava`: `/api/v3/…` (the real service's layout) and the unprefixed paths of the API host
 *   (PUBLIC_API_URL, mapped to `/api/v3/…` in server/http/api-host.ts): where Strava's own clients
 *   call, Strava's behaviour wins where it differs (the date window combined with paging, the extra
 *   fields its answers carry, its reduced club feed items).
 *
 * The mount (server/http/mount.ts) registers each route under both prefixes and hands the handler
 * the dialect of the one it answered on; the representations and the parameter parser take it
 * from there. docs/app-developers.md lists every difference and why.
 */
export type Dialect = "spec" | "strava";

/** The Hono paths of a /v3 route in each dialect: the spec's own, and Strava's /api/v3 layout. */
export function dialectPaths(path: string): { path: string; dialect: Dialect }[] {
  if (!path.startsWith("/v3/")) return [{ path, dialect: "spec" }];
  return [{ path, dialect: "spec" }, { path: `/api${path}`, dialect: "strava" }];
}
