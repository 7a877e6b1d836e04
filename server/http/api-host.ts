/**
 * The API without its /v3 prefix on a host of its own (PUBLIC_API_URL), as Strava's newer base
 * URL (https://api-v3.strava.com) serves it: a request to that host for /athlete is answered as
 * /api/v3/athlete — Strava's layout, so Strava's dialect (server/http/dialect.ts) — and a tool moved
 * to the new base URL needs only its host changed. Paths that already name the API (/v3/…, the
 * spec's; /api/v3/…), OAuth (/oauth/…) and the unprefixed files the API links to (/avatars/…,
 * /photos/…) and the operating endpoints pass unchanged; other hosts are not touched.
 */
type FetchHandler = (request: Request) => Response | Promise<Response>;

const UNCHANGED = /^\/(v3|api\/v3|oauth|avatars|photos)(\/|$)|^\/(health|ready|metrics)$/;

/** The hostname of PUBLIC_API_URL, lower case, or undefined when unset. */
export function apiHostOf(publicApiUrl: string | undefined): string | undefined {
  return publicApiUrl ? new URL(publicApiUrl).hostname.toLowerCase() : undefined;
}

/** The request as the API answers it: on the API host, /athlete → /api/v3/athlete (query kept). */
export function apiHostRequest(request: Request, apiHost: string): Request {
  const host = (request.headers.get("host") ?? "").toLowerCase().replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
  if (host !== apiHost.replace(/^\[(.*)\]$/, "$1")) return request;
  const url = new URL(request.url);
  if (UNCHANGED.test(url.pathname)) return request;
  url.pathname = `/api/v3${url.pathname === "/" ? "" : url.pathname}`;
  return new Request(url, request);
}

/** A fetch handler answering the API host's unprefixed paths (the handler itself when no API host is set). */
export function withApiHost(fetch: FetchHandler, publicApiUrl: string | undefined): FetchHandler {
  const apiHost = apiHostOf(publicApiUrl);
  return apiHost ? (request) => fetch(apiHostRequest(request, apiHost)) : fetch;
}
