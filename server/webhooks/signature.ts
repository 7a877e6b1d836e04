import { createHmac } from "node:crypto";
import { constantTimeEqual, hashSecret } from "../security.ts";

/** The header every delivery carries: `sha256=<hex HMAC-SHA256 of the exact body bytes>`. */
export const SIGNATURE_HEADER = "X-Hub-Signature-256";
/** The delivery's id: the same on every attempt of one delivery (at-least-once: deduplicate on it). */
export const DELIVERY_HEADER = "X-Webhook-Delivery";
/** Which attempt this is (1 = first). */
export const ATTEMPT_HEADER = "X-Webhook-Attempt";

/**
 * The HMAC key: the lowercase hex sha-256 of the application's client secret, as text (64 ASCII
 * bytes). The platform keeps only that hash (never the secret), and the application computes it
 * from its secret.
 */
export function signingKey(clientSecret: string): string {
  return hashSecret(clientSecret);
}

/** The signature header value for a body, keyed with the stored client-secret hash. */
export function signBody(clientSecretHash: string, body: string): string {
  return `sha256=${createHmac("sha256", clientSecretHash).update(body, "utf8").digest("hex")}`;
}

/** What a receiver does: recompute with its client secret and compare in constant time. */
export function verifySignature(clientSecret: string, body: string, header: string | null | undefined): boolean {
  if (!header) return false;
  return constantTimeEqual(signBody(signingKey(clientSecret), body), header.trim().toLowerCase());
}
