/**
 * Requests to application callbacks (the handshake and every delivery) under the address policy
 * (address-policy.ts): before each hop the URL's host is resolved and checked, and the connection
 * is made to exactly the checked addresses (node:http/https with a lookup that answers them), so a
 * DNS answer that changes between the check and the connection is not used. Redirects are followed
 * by hand (bounded hops), each Location checked the same way before anything is sent to it.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { type Address, type AddressPolicy, checkTarget, literalAddress } from "./address-policy.ts";

/** Redirect hops followed after the first request (the handshake's and a delivery's 307/308). */
export const MAX_REDIRECTS = 3;

export interface OutboundRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface OutboundOptions {
  policy: AddressPolicy;
  /** One deadline for the whole chain (resolution, connection, redirects, answer). */
  timeoutMs: number;
  /** Largest answer body kept (longer ones are dropped: body null). */
  maxBodyBytes?: number;
  /** Redirect hops followed (MAX_REDIRECTS by default). */
  maxRedirects?: number;
}

export type OutboundResult =
  /** The callback answered (the last hop's status and body). */
  | { kind: "answered"; status: number; body: string | null; url: string; hops: number }
  /** The address policy refused a hop: nothing was sent to it. */
  | {
    kind: "refused";
    reason: "unsupported" | "not resolvable" | "private address";
    error: string;
    url: string;
    hops: number;
  }
  /** Timeout, connection failure, too many redirects, a broken Location. */
  | { kind: "failed"; error: string; hops: number };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether a redirect is followed: any for GET (it stays a GET); for POST only 307/308, which keep the method and body. */
function follows(status: number, method: string): boolean {
  return method === "GET" ? REDIRECTS.has(status) : status === 307 || status === 308;
}

class Timeout extends Error {
  override name = "TimeoutError";
}

function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Timeout("timeout"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Timeout("timeout"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A lookup that answers only the checked addresses (the connection cannot go anywhere else). */
function pinnedLookup(addresses: readonly Address[]): LookupFunction {
  return ((_hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === "function" ? options as (...args: unknown[]) => void : callback;
    const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all;
    if (all) cb(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else cb(null, addresses[0].address, addresses[0].family);
  }) as LookupFunction;
}

interface HopAnswer {
  status: number;
  location: string | null;
  body: string | null;
}

function requestOnce(
  url: URL,
  addresses: readonly Address[],
  request: { method: string; headers: Record<string, string>; body?: string },
  signal: AbortSignal,
  maxBodyBytes: number,
  wantBody: boolean,
): Promise<HopAnswer> {
  return new Promise<HopAnswer>((resolve, reject) => {
    const secure = url.protocol === "https:";
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(request.body));
    const options: https.RequestOptions = {
      method: request.method,
      hostname,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      headers,
      lookup: pinnedLookup(addresses),
      signal,
      agent: false,
    };
    if (secure && !literalAddress(url.hostname)) options.servername = hostname;
    const req = (secure ? https : http).request(options, (res) => {
      const status = res.statusCode ?? 0;
      const location = typeof res.headers.location === "string" ? res.headers.location : null;
      if (!wantBody) {
        res.resume();
        res.on("end", () => resolve({ status, location, body: null }));
        res.on("error", () => resolve({ status, location, body: null }));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) {
          res.destroy();
          resolve({ status, location, body: null });
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => resolve({ status, location, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (error) => reject(error));
    });
    req.on("error", (error) => reject(signal.aborted ? new Timeout("timeout") : error));
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/**
 * Sends a request to a callback under the address policy. Never throws. Every hop (the first and
 * each redirect's Location) is resolved and checked before anything is sent there; a refused hop
 * ends the chain with `refused`.
 */
export async function callbackRequest(request: OutboundRequest, options: OutboundOptions): Promise<OutboundResult> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  let hops = 0;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { kind: "failed", error: "invalid URL", hops };
  }
  try {
    for (;;) {
      const target = await withDeadline(checkTarget(url, options.policy), signal);
      if (!target.ok) {
        return { kind: "refused", reason: target.reason, error: `refused: ${target.detail}`, url: url.href, hops };
      }
      const answer = await requestOnce(
        url,
        target.addresses,
        { method: request.method, headers: request.headers ?? {}, body: request.body },
        signal,
        maxBodyBytes,
        request.method === "GET",
      );
      if (!(follows(answer.status, request.method) && answer.location !== null)) {
        return { kind: "answered", status: answer.status, body: answer.body, url: url.href, hops };
      }
      if (hops >= maxRedirects) return { kind: "failed", error: `more than ${maxRedirects} redirects`, hops };
      try {
        url = new URL(answer.location, url);
      } catch {
        return { kind: "failed", error: "redirect to an invalid Location", hops };
      }
      hops++;
    }
  } catch (error) {
    const name = (error as Error).name;
    const timeout = name === "TimeoutError" || name === "AbortError" || signal.aborted;
    return { kind: "failed", error: timeout ? "timeout" : String((error as Error).message).slice(0, 200), hops };
  }
}
