import { randomSecret } from "../security.ts";

/** A callback must answer the handshake and every delivery within 2 seconds (as the real service). */
export const CALLBACK_TIMEOUT_MS = 2000;
/** Callback URLs longer than this are refused (the real service's limit). */
export const MAX_CALLBACK_URL = 255;

/**
 * Is a callback URL acceptable: absolute http(s), no user info, no fragment, ≤ 255 characters.
 * Loopback and private addresses are allowed (self-hosted platforms deliver to local apps).
 */
export function callbackUrlAllowed(callbackUrl: string): boolean {
  if (callbackUrl.length > MAX_CALLBACK_URL) return false;
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return !url.username && !url.password && !url.hash;
}

/**
 * The validation handshake: GET callback?hub.mode=subscribe&hub.challenge=…&hub.verify_token=…
 * must answer 2xx within 2 s with JSON {"hub.challenge": <the same value>}. Redirects are not
 * followed. Never throws.
 */
export async function verifyCallback(callbackUrl: string, verifyToken: string): Promise<boolean> {
  const challenge = randomSecret(16);
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    return false;
  }
  url.searchParams.set("hub.mode", "subscribe");
  url.searchParams.set("hub.challenge", challenge);
  url.searchParams.set("hub.verify_token", verifyToken);
  try {
    const response = await fetch(url, {
      method: "GET",
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel().catch(() => {});
      return false;
    }
    const text = await response.text();
    if (text.length > 64 * 1024) return false;
    const body = JSON.parse(text) as unknown;
    if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
    const echoed = (body as Record<string, unknown>)["hub.challenge"];
    return (typeof echoed === "string" || typeof echoed === "number") && String(echoed) === challenge;
  } catch {
    return false;
  }
}
