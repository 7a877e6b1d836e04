import type { Context } from "hono";

/**
 * Every redirect the web pages answer goes through this file, so that no Location header is ever
 * built from unchecked input:
 * - a target that comes from the visitor (`next` after sign-in / sign-up, the page to come back to)
 *   is used only when it parses (WHATWG URL, against our own origin) to a path on our own origin;
 *   anything else — another host, another scheme, `//host`, `/\host`, a tab or new line hidden in
 *   it, control characters, an over-long value — falls back to the default page;
 * - an OAuth client's redirect_uri (already checked against its callback domain) is used in its
 *   serialized WHATWG form, with the parameters added by URLSearchParams.
 * Either way the header value is a serialized URL: ASCII, percent-encoded, no CR, LF or NUL.
 */

/** The longest `next` accepted (a path and query of our own pages are far shorter). */
export const MAX_NEXT_LENGTH = 2048;

// The origin a relative target is resolved against; only used to tell "ours" from "elsewhere".
const OWN = new URL("http://own.invalid");

/** A path on our own origin (path, query and fragment, serialized) for `input`, or `fallback`. */
export function localTarget(input: unknown, fallback: string): string {
  if (typeof input !== "string" || input.length === 0 || input.length > MAX_NEXT_LENGTH) return fallback;
  // The URL parser silently drops tabs and new lines ("/\t/evil" becomes "//evil"), and a
  // backslash is a slash to it: refuse them outright rather than guess what a browser makes of them.
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(input)) return fallback;
  if (!input.startsWith("/")) return fallback;
  let url: URL;
  try {
    url = new URL(input, OWN);
  } catch {
    return fallback;
  }
  if (url.origin !== OWN.origin) return fallback;
  const target = url.pathname + url.search + url.hash;
  // The serialized path must itself be unambiguous when a browser resolves it against our origin.
  if (!target.startsWith("/") || target.startsWith("//")) return fallback;
  return target;
}

/** A redirect to a path on our own site: `input` when it is one, else `fallback` (a literal path). */
export function redirectLocal(c: Context, input: unknown, fallback: string, status: 302 | 303 = 303): Response {
  return c.redirect(localTarget(input, fallback), status);
}

/** Sends the browser back to an OAuth client's (checked) redirect_uri with `params` in its query. */
export function redirectToClient(
  c: Context,
  redirectUri: string,
  params: Record<string, string | undefined>,
): Response {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  c.header("cache-control", "no-store");
  return c.redirect(url.href, 302);
}

/** Sends a visitor who is not signed in to the sign-in page, coming back to this page afterwards. */
export function redirectToSignIn(c: Context): Response {
  const url = new URL(c.req.url);
  const next = localTarget(url.pathname + url.search, "/settings/apps");
  return c.redirect(`/login?next=${encodeURIComponent(next)}`, 302);
}
