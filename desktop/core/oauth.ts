import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import type { TokenProvider } from "./api.ts";

/** What the companion keeps after signing in. */
export interface StoredToken {
  server: string;
  client_id: string;
  client_secret?: string;
  access_token: string;
  refresh_token?: string;
  /** Seconds since the epoch. */
  expires_at?: number;
  athlete?: { id?: number | string; firstname?: string; lastname?: string };
}

/** Where the token lives: a 0600 file headless, Electron safeStorage in the window app. */
export interface TokenStore {
  load(): StoredToken | undefined;
  save(token: StoredToken): void;
  clear(): void;
}

/** A JSON file readable by the owner only (mode 0600). */
export class FileTokenStore implements TokenStore {
  constructor(readonly path: string) {}
  load(): StoredToken | undefined {
    if (!existsSync(this.path)) return undefined;
    try {
      return JSON.parse(readFileSync(this.path, "utf8"));
    } catch {
      return undefined;
    }
  }
  save(token: StoredToken): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, JSON.stringify(token), { mode: 0o600 });
    try {
      chmodSync(this.path, 0o600);
    } catch { /* Windows: ACLs of the profile folder apply */ }
  }
  clear(): void {
    rmSync(this.path, { force: true });
  }
}

/** A token given on the command line: used as is, never refreshed. */
export class StaticToken implements TokenProvider {
  constructor(readonly token: string) {}
  accessToken(): Promise<string> {
    return Promise.resolve(this.token);
  }
  refreshAfterUnauthorized(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

const REFRESH_MARGIN_S = 5 * 60;

/** The signed-in session: hands out the access token, refreshing it shortly before it expires. */
export class OAuthSession implements TokenProvider {
  #refreshing: Promise<StoredToken> | undefined;
  constructor(readonly store: TokenStore) {}

  get token(): StoredToken | undefined {
    return this.store.load();
  }

  async accessToken(): Promise<string> {
    const token = this.store.load();
    if (!token) {
      throw new Error("Not signed in. Sign in first (npm run companion -- sign-in --server URL --client-id ID).");
    }
    if (token.refresh_token && token.expires_at && token.expires_at - REFRESH_MARGIN_S <= Date.now() / 1000) {
      return (await this.refresh()).access_token;
    }
    return token.access_token;
  }

  async refreshAfterUnauthorized(): Promise<boolean> {
    const token = this.store.load();
    if (!token?.refresh_token) return false;
    await this.refresh();
    return true;
  }

  /** grant_type=refresh_token; the server rotates the refresh token, so the new one is saved at once. */
  refresh(): Promise<StoredToken> {
    this.#refreshing ??= (async () => {
      try {
        const token = this.store.load();
        if (!token?.refresh_token) throw new Error("Not signed in.");
        const fresh = await tokenRequest(token.server, {
          grant_type: "refresh_token",
          client_id: token.client_id,
          client_secret: token.client_secret,
          refresh_token: token.refresh_token,
        });
        const next: StoredToken = { ...token, ...fresh, athlete: fresh.athlete ?? token.athlete };
        this.store.save(next);
        return next;
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }
}

/** PKCE (RFC 7636): a random verifier and its S256 challenge. */
export function pkcePair(verifier = base64url(randomBytes(32))): { verifier: string; challenge: string } {
  return { verifier, challenge: base64url(createHash("sha256").update(verifier).digest()) };
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export interface SignInOptions {
  server: string;
  clientId: string;
  clientSecret?: string;
  scope?: string;
  /** Opens the authorization page (the system browser, or the Electron shell). */
  open(url: string): void | Promise<void>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Authorization code + PKCE (S256) with a loopback redirect on 127.0.0.1 and a random port. Resolves
 * with the tokens once the browser comes back and the code is exchanged.
 */
export async function signIn(options: SignInOptions): Promise<StoredToken> {
  const { verifier, challenge } = pkcePair();
  const state = base64url(randomBytes(16));
  const server = options.server.replace(/\/+$/, "");
  let settle!: (result: { code?: string; error?: string }) => void;
  const arrived = new Promise<{ code?: string; error?: string }>((resolve) => (settle = resolve));
  const loopback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const ok = url.searchParams.get("state") === state && !!url.searchParams.get("code");
    const error = url.searchParams.get("state") !== state
      ? "The answer didn't match this sign-in (state mismatch)."
      : url.searchParams.get("error") === "access_denied"
      ? "Access was denied on the consent page."
      : url.searchParams.get("error") ?? (ok ? undefined : "No authorization code came back.");
    res.writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>Fitness Companion</title><body style="font-family:sans-serif;margin:3em">
<h1>${ok ? "Signed in" : "Sign-in failed"}</h1><p>${
        ok ? "You can close this tab and return to the companion." : escapeHtml(error ?? "")
      }</p>`,
    );
    settle(ok ? { code: url.searchParams.get("code")! } : { error });
  });
  await new Promise<void>((resolve, reject) => {
    loopback.once("error", reject);
    loopback.listen(0, "127.0.0.1", () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}/callback`;
  try {
    const authorize = new URL(`${server}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: options.clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      approval_prompt: "auto",
      scope: options.scope ?? "write",
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    await options.open(authorize.href);
    const timeout = new Promise<{ code?: string; error?: string }>((resolve) => {
      const t = setTimeout(
        () => resolve({ error: "Sign-in timed out (nobody approved in the browser)." }),
        options.timeoutMs ?? 5 * 60_000,
      );
      options.signal?.addEventListener("abort", () => {
        clearTimeout(t);
        resolve({ error: "Sign-in cancelled." });
      });
      arrived.then(() => clearTimeout(t));
    });
    const result = await Promise.race([arrived, timeout]);
    if (!result.code) throw new Error(result.error ?? "Sign-in failed.");
    const token = await tokenRequest(server, {
      grant_type: "authorization_code",
      client_id: options.clientId,
      client_secret: options.clientSecret,
      code: result.code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
    });
    return { server, client_id: options.clientId, client_secret: options.clientSecret, ...token };
  } finally {
    loopback.close();
    loopback.closeAllConnections?.();
  }
}

async function tokenRequest(
  server: string,
  fields: Record<string, string | undefined>,
): Promise<Omit<StoredToken, "server" | "client_id">> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== "") form.set(k, v);
  let res: Response;
  try {
    res = await fetch(`${server.replace(/\/+$/, "")}/oauth/token`, {
      method: "POST",
      body: form,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new Error(`The server at ${server} can't be reached (${(error as Error).message}).`);
  }
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok || !json || typeof json.access_token !== "string") {
    const message = typeof json?.message === "string" ? json.message : `HTTP ${res.status}`;
    throw new Error(`The server refused the sign-in (${message}).`);
  }
  const expiresAt = typeof json.expires_at === "number"
    ? json.expires_at
    : typeof json.expires_in === "number"
    ? Math.floor(Date.now() / 1000) + json.expires_in
    : undefined;
  const athlete = json.athlete as StoredToken["athlete"];
  return {
    access_token: json.access_token,
    refresh_token: typeof json.refresh_token === "string" ? json.refresh_token : undefined,
    expires_at: expiresAt,
    athlete: athlete ? { id: athlete.id, firstname: athlete.firstname, lastname: athlete.lastname } : undefined,
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
