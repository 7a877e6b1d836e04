import { createHash, randomBytes, scrypt } from "node:crypto";
import { sameSecret } from "../shared/secrets.ts";

/** A random secret of 160 bits, hex encoded (tokens, client secrets, codes). */
export function randomSecret(bytes = 20): string {
  return randomBytes(bytes).toString("hex");
}

/** Tokens and secrets are stored only as their sha-256. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Compares two strings in constant time (for equal lengths; unequal lengths return false). */
export const constantTimeEqual = sameSecret;

/** Does a secret match its stored hash (constant time)? */
export function secretMatches(secret: string, storedHash: string): boolean {
  return constantTimeEqual(hashSecret(secret), storedHash);
}

/** scrypt cost parameters stored with every hash: "scrypt$N$r$p$salt$hash". */
export interface PasswordCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP Password Storage Cheat Sheet, scrypt: N = 2^17, r = 8, p = 1 (128 MiB per hash). */
export const PASSWORD_COST: PasswordCost = { N: 2 ** 17, r: 8, p: 1 };

/**
 * A cheap cost for test servers only: used when a test's Config asks for it explicitly
 * (passwordCost: "test"), never by default and never from the environment.
 */
export const TEST_PASSWORD_COST: PasswordCost = { N: 2 ** 10, r: 8, p: 1 };

const KEYLEN = 32;
const SALT_BYTES = 16;
/** At most this many hashes run at once: each needs 128·N·r bytes (128 MiB at the OWASP cost). */
const CONCURRENT_HASHES = 2;

let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(run: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await run();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** node:crypto's asynchronous scrypt runs on the runtime's thread pool, off the event loop. */
function scryptAsync(password: string, salt: Buffer, keylen: number, cost: PasswordCost) {
  const maxmem = 128 * cost.N * cost.r * cost.p + 32 * 1024 * 1024;
  return limited(() =>
    new Promise<Buffer>((resolve, reject) =>
      scrypt(
        password,
        salt,
        keylen,
        { N: cost.N, r: cost.r, p: cost.p, maxmem },
        (error, key) => error ? reject(error) : resolve(key),
      )
    )
  );
}

/** scrypt password hash with its parameters: "scrypt$N$r$p$salt$hash". */
export async function hashPassword(password: string, cost: PasswordCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(password, salt, KEYLEN, cost);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("hex"), key.toString("hex")].join("$");
}

/** The parameters a stored hash was made with (undefined when it is not a well-formed scrypt hash). */
export function passwordHashCost(stored: string): PasswordCost | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== "scrypt" || !/^[0-9a-f]{2,}$/.test(salt ?? "") || !/^[0-9a-f]{32,128}$/.test(hash ?? "")) {
    return undefined;
  }
  if (!Number.isInteger(Math.log2(cost.N)) || cost.N < 2 || cost.N > 2 ** 20) return undefined;
  if (
    !Number.isInteger(cost.r) || cost.r < 1 || cost.r > 32 || !Number.isInteger(cost.p) || cost.p < 1 || cost.p > 16
  ) return undefined;
  return cost;
}

/** Is a hash made with less work than `target` (so it should be replaced at the next sign-in)? */
export function weakerThan(cost: PasswordCost, target: PasswordCost): boolean {
  return cost.N * cost.r * cost.p < target.N * target.r * target.p || cost.N < target.N;
}

/**
 * Checks a password against its stored hash (constant-time comparison). `rehash` says the hash
 * was made with weaker parameters than `target`: the caller stores a new one (the password is right).
 */
export async function verifyPassword(
  password: string,
  stored: string,
  target: PasswordCost = PASSWORD_COST,
): Promise<{ ok: boolean; rehash: boolean }> {
  const cost = passwordHashCost(stored);
  if (!cost) return { ok: false, rehash: false };
  const [, , , , salt, hash] = stored.split("$");
  const key = await scryptAsync(password, Buffer.from(salt, "hex"), hash.length / 2, cost);
  const ok = constantTimeEqual(key.toString("hex"), hash);
  return { ok, rehash: ok && weakerThan(cost, target) };
}
