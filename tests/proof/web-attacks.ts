import { type IncomingHttpHeaders, request } from "node:http";
import { openDb } from "../../events/db/open.ts";
import { WebClient } from "../oauth/web-client.ts";

/**
 * Helpers for the web-page attack proofs (tests/proof/*-web*.test.ts and friends): a browser-like
 * form client per visitor, sign-up / sign-in through the real pages, requests from a chosen local
 * address, and a look into the data dir once the Deno server has stopped.
 */

let counter = 0;

/** A fresh e-mail address for this run. */
export function freshEmail(tag: string): string {
  return `${tag}${++counter}-${Date.now()}@example.com`;
}

/** Signs up through GET + POST /register (the real pages, the server's password cost). */
export async function signUp(client: WebClient, email: string, password: string, next?: string) {
  const page = await client.get("/register");
  const form: Record<string, string> = {
    _csrf: WebClient.csrf(page.text),
    firstname: "Web",
    lastname: "Proof",
    email,
    password,
  };
  if (next !== undefined) form.next = next;
  return client.post("/register", form);
}

/** Signs in through GET + POST /login with an optional next. */
export async function signInWith(client: WebClient, email: string, password: string, next?: string) {
  const page = await client.get("/login");
  const form: Record<string, string> = { _csrf: WebClient.csrf(page.text), email, password };
  if (next !== undefined) form.next = next;
  return client.post("/login", form);
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request from `localAddress` (e.g. 127.0.0.2: another client address on the loopback
 * network), with the given cookies and form body. Redirects are not followed.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; cookie?: string; form?: Record<string, string> } = {},
): Promise<RawResponse> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? (body ? "POST" : "GET"),
      localAddress,
      headers: {
        accept: "text/html",
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(body
          ? { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) }
          : {}),
      },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

/** The cookie header a WebClient sends. */
export function cookieHeader(client: WebClient): string {
  return [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
}

/** Runs `read` against the stopped server's PGlite data dir (public schema and read models). */
export async function withDataDir<T>(
  dataDir: string,
  read: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>,
): Promise<T> {
  const db = await openDb({ dataDir, searchPath: "rm, public" });
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}
