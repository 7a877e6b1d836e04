import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * The OAuth grant's pure cryptography, shared by its decider and the token endpoint: the sealed
 * access token (AES-256-GCM keyed by the refresh token it belongs to) and PKCE S256.
 */

function sealKey(refreshToken: string): Buffer {
  return createHash("sha256").update(`seal-v1:${refreshToken}`).digest();
}

/**
 * Encrypts the access token so only the holder of the refresh token can read it back. The 12-byte
 * IV is drawn by the caller (a decider stays a function of its command); each refresh token seals
 * exactly one access token, so a key never sees two IVs anyway.
 */
export function sealAccessToken(accessToken: string, refreshToken: string, iv: Uint8Array = randomBytes(12)): string {
  const cipher = createCipheriv("aes-256-gcm", sealKey(refreshToken), iv);
  const body = Buffer.concat([cipher.update(accessToken, "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64");
}

export function openAccessToken(sealed: string, refreshToken: string): string | undefined {
  try {
    const bytes = Buffer.from(sealed, "base64");
    const decipher = createDecipheriv("aes-256-gcm", sealKey(refreshToken), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

/** PKCE S256: base64url(sha256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export { sameSecret } from "../../shared/secrets.ts";
