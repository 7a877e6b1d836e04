import type { Context, MiddlewareHandler } from "hono";

/**
 * The security headers of every response, set in one place (the app's first middleware): API JSON
 * and HTML pages, assets, redirects, errors from onError and the not-found handler alike.
 *
 * - `X-Content-Type-Options: nosniff`
 * - `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no page of this server is framed
 * - `Content-Security-Policy`: DEFAULT_CSP (no script at all), or the page's own policy
 * - `Referrer-Policy`: `no-referrer`, or the page's own policy
 *
 * A page that needs more (the app's scripts and map tiles, the API reference, the heatmap viewer)
 * declares its policy with `pagePolicy(c, …)` before answering; the middleware writes it (and the
 * fixed headers) on whatever response the request ends with, also when it ends in an error.
 */
export const DEFAULT_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const DEFAULT_REFERRER_POLICY = "no-referrer";

export interface PagePolicy {
  /** Content-Security-Policy directives (frame-ancestors 'none' is added when missing). */
  csp?: string;
  referrerPolicy?: "no-referrer" | "same-origin" | "strict-origin-when-cross-origin";
}

const POLICY_KEY = "securityPolicy";

/** Declares this request's page policy (its CSP and Referrer-Policy); later calls replace earlier ones. */
export function pagePolicy(c: Context, policy: PagePolicy): void {
  c.set(POLICY_KEY as never, policy as never);
}

/** The headers a response to this request carries (for a request without a page policy: the defaults). */
export function securityHeadersFor(policy: PagePolicy | undefined): Record<string, string> {
  let csp = policy?.csp ?? DEFAULT_CSP;
  if (!/(^|;)\s*frame-ancestors\s/.test(csp)) csp = `${csp}; frame-ancestors 'none'`;
  return {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": csp,
    "referrer-policy": policy?.referrerPolicy ?? DEFAULT_REFERRER_POLICY,
  };
}

/** Writes the headers on a response (a copy when its headers are immutable, e.g. passed through from fetch). */
export function withSecurityHeaders(res: Response, policy?: PagePolicy): Response {
  const headers = securityHeadersFor(policy);
  try {
    for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
    return copy;
  }
}

/** The headers of a response without a page policy (most of them: every API answer), listed once. */
const DEFAULT_HEADERS = Object.entries(securityHeadersFor(undefined));

/**
 * The middleware: first in the app, so it sees every response the request ends with. It writes
 * on the response in place (assigning c.res would copy it: Hono's setter makes a new Response).
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    try {
      await next();
    } finally {
      const policy = c.get(POLICY_KEY as never) as PagePolicy | undefined;
      const headers = policy === undefined ? DEFAULT_HEADERS : Object.entries(securityHeadersFor(policy));
      try {
        for (const [name, value] of headers) c.res.headers.set(name, value);
      } catch {
        // Immutable headers (a response passed through from fetch): answer a copy.
        c.res = new Response(c.res.body, c.res);
        for (const [name, value] of headers) c.res.headers.set(name, value);
      }
    }
  };
}
