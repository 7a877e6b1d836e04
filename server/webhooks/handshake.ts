import { randomSecret } from "../security.ts";
import type { AddressPolicy } from "./address-policy.ts";
import { callbackRequest } from "./outbound.ts";

/** A callback must answer the handshake and every delivery within 2 seconds (as the real service). */
export const CALLBACK_TIMEOUT_MS = 2000;
/** The User-Agent of the handshake and of every delivery. */
export const USER_AGENT = "fitness-platform-webhooks/1";
/** Callback URLs longer than this are refused (the real service's limit). */
export const MAX_CALLBACK_URL = 255;

/**
 * Is a callback URL well-formed: absolute http(s), no user info, no fragment, ≤ 255 characters.
 * Where it points is the address policy's question (address-policy.ts, checked before the
 * handshake and at every delivery).
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

/** Why a handshake did not verify the callback. */
export type HandshakeResult =
  | { ok: true }
  /** The address policy refused the callback or a redirect hop of it: nothing was sent there. */
  | { ok: false; refused: { reason: "unsupported" | "not resolvable" | "private address"; error: string } }
  | { ok: false; refused?: undefined; error: string };

/**
 * The validation handshake: GET callback?hub.mode=subscribe&hub.challenge=…&hub.verify_token=…
 * must answer 2xx within 2 s with JSON {"hub.challenge": <the same value>}. Every hop goes through
 * the address policy (outbound.ts): a callback, or a redirect Location (at most MAX_REDIRECTS are
 * followed), that resolves to a non-public address is refused unless the policy allows private
 * addresses. Never throws.
 */
export async function verifyCallback(
  callbackUrl: string,
  verifyToken: string,
  policy: AddressPolicy,
): Promise<HandshakeResult> {
  const challenge = randomSecret(16);
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    return { ok: false, error: "invalid URL" };
  }
  url.searchParams.set("hub.mode", "subscribe");
  url.searchParams.set("hub.challenge", challenge);
  url.searchParams.set("hub.verify_token", verifyToken);
  const answer = await callbackRequest(
    { method: "GET", url: url.href, headers: { accept: "application/json", "user-agent": USER_AGENT } },
    { policy, timeoutMs: CALLBACK_TIMEOUT_MS, maxBodyBytes: 64 * 1024 },
  );
  if (answer.kind === "refused") return { ok: false, refused: { reason: answer.reason, error: answer.error } };
  if (answer.kind === "failed") return { ok: false, error: answer.error };
  if (answer.status < 200 || answer.status > 299) return { ok: false, error: `HTTP ${answer.status}` };
  if (answer.body === null) return { ok: false, error: "answer too long" };
  try {
    const body = JSON.parse(answer.body) as unknown;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return { ok: false, error: "not a JSON object" };
    }
    const echoed = (body as Record<string, unknown>)["hub.challenge"];
    const same = (typeof echoed === "string" || typeof echoed === "number") && String(echoed) === challenge;
    return same ? { ok: true } : { ok: false, error: "wrong hub.challenge" };
  } catch {
    return { ok: false, error: "not JSON" };
  }
}
