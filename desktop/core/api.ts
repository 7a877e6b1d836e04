import { parseJsonExact } from "../../shared/json.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import type { DataType } from "./files.ts";

/** Supplies the bearer token; may refresh it when the server says it is no longer valid. */
export interface TokenProvider {
  accessToken(): Promise<string>;
  /** Called after a 401: returns true when a fresh token is now available (try again). */
  refreshAfterUnauthorized(): Promise<boolean>;
}

/** What became of an upload, in the companion's terms. */
export type UploadState =
  | { state: "processing"; uploadId: string }
  | { state: "ready"; uploadId: string; activityId: string }
  | { state: "duplicate"; uploadId?: string; activityId?: string; message: string }
  | { state: "error"; uploadId?: string; message: string }
  | { state: "deleted"; uploadId: string };

/** Why a request did not give an answer about the upload; the file stays queued. */
export type Hold =
  | { hold: "rate_limited"; until: number; message: string }
  | { hold: "unauthorized"; message: string }
  | { hold: "unavailable"; message: string };

export type ApiResult = UploadState | Hold;

export function isHold(r: ApiResult): r is Hold {
  return "hold" in r;
}

export class UploadClient {
  constructor(readonly server: string, readonly tokens: TokenProvider, readonly fetchTimeoutMs = 60_000) {}

  /** POST /v3/uploads (multipart) with data_type and external_id. */
  upload(
    file: { bytes: Uint8Array; name: string; dataType: DataType; externalId: string },
    signal?: AbortSignal,
  ): Promise<ApiResult> {
    return this.#call("POST", "/v3/uploads", signal, () => {
      const form = new FormData();
      form.set("file", new Blob([file.bytes as BlobPart]), file.name);
      form.set("data_type", file.dataType);
      form.set("external_id", file.externalId);
      return form;
    });
  }

  /** GET /v3/uploads/:id. */
  status(uploadId: string, signal?: AbortSignal): Promise<ApiResult> {
    return this.#call("GET", `/v3/uploads/${encodeURIComponent(uploadId)}`, signal);
  }

  async #call(
    method: string,
    path: string,
    signal?: AbortSignal,
    body?: () => FormData,
    retried = false,
  ): Promise<ApiResult> {
    const url = `${this.server.replace(/\/+$/, "")}${path}`;
    let token: string;
    try {
      token = await this.tokens.accessToken();
    } catch (error) {
      return { hold: "unauthorized", message: (error as Error).message };
    }
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
        body: body?.(),
        signal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(this.fetchTimeoutMs)])
          : AbortSignal.timeout(this.fetchTimeoutMs),
      });
    } catch (error) {
      return {
        hold: "unavailable",
        message: `The server at ${this.server} can't be reached (${describeNetworkError(error)}). Will retry.`,
      };
    }
    const text = await res.text().catch(() => "");
    const json = parseBody(res, text);
    if (isRateLimited(res, json)) {
      const until = rateLimitResetAt(res.headers, Date.now());
      return {
        hold: "rate_limited",
        until,
        message: `Rate limit reached; waiting until ${
          new Date(until).toLocaleTimeString()
        } (the server's window resets then).`,
      };
    }
    if (res.status === 401) {
      if (!retried && await this.tokens.refreshAfterUnauthorized().catch(() => false)) {
        return this.#call(method, path, signal, body, true);
      }
      const missing = faultField(json);
      return {
        hold: "unauthorized",
        message: missing === "write_permission"
          ? "This sign-in doesn't allow uploads (write permission missing). Sign in again."
          : "The server no longer accepts this sign-in (expired or revoked). Sign in again.",
      };
    }
    const status = uploadStatusOf(json);
    if (status && (res.status === 200 || res.status === 201 || res.status === 400)) return status;
    if (res.status >= 500) {
      return { hold: "unavailable", message: `The server had a problem (HTTP ${res.status}). Will retry.` };
    }
    if (!json) {
      return {
        hold: "unavailable",
        message:
          `${this.server} doesn't look like a fitness platform server (${method} ${path} answered HTTP ${res.status} ${
            res.headers.get("content-type") ?? "without a body"
          }). Check the server address.`,
      };
    }
    if (res.status === 404 && method === "GET") {
      return { state: "error", message: "The server no longer knows this upload." };
    }
    if (res.status === 404) {
      return {
        hold: "unavailable",
        message: `${this.server} has no upload endpoint (HTTP 404). Check the server address.`,
      };
    }
    if (res.status === 413) return { state: "error", message: "The file is larger than this server accepts." };
    const message = typeof json.message === "string" ? json.message : `HTTP ${res.status}`;
    const fields = Array.isArray(json.errors)
      ? json.errors.map((e: { field?: string; code?: string }) => `${e.field ?? ""} ${e.code ?? ""}`.trim()).filter(
        Boolean,
      ).join(", ")
      : "";
    return { state: "error", message: `The server refused the file: ${message}${fields ? ` (${fields})` : ""}.` };
  }
}

// deno-lint-ignore no-explicit-any
function parseBody(res: Response, text: string): any {
  if (!text || !(res.headers.get("content-type") ?? "").includes("json")) return undefined;
  try {
    return parseJsonExact(text);
  } catch {
    return undefined;
  }
}

// deno-lint-ignore no-explicit-any
function faultField(json: any): string | undefined {
  return Array.isArray(json?.errors) ? json.errors[0]?.field : undefined;
}

function describeNetworkError(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return "no answer in time";
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}

// deno-lint-ignore no-explicit-any
function isRateLimited(res: Response, json: any): boolean {
  if (res.status === 429) return true;
  if (res.status !== 403) return false;
  const byBody = Array.isArray(json?.errors) && json.errors.some((e: { field?: string }) => e?.field === "rate limit");
  const limit = pair(res.headers.get("x-ratelimit-limit"));
  const usage = pair(res.headers.get("x-ratelimit-usage"));
  const byHeaders = !!limit && !!usage && (usage[0] >= limit[0] || usage[1] >= limit[1]);
  return byBody || byHeaders;
}

function pair(value: string | null): [number, number] | undefined {
  const parts = (value ?? "").split(",").map((s) => Number(s.trim()));
  return parts.length === 2 && parts.every(Number.isFinite) ? [parts[0], parts[1]] : undefined;
}

const QUARTER = 15 * 60 * 1000;
const DAY = 24 * 60 * 60 * 1000;

/**
 * When a rate-limited client may call again: Retry-After when given; the next UTC midnight when the
 * daily usage is at its limit; otherwise the next quarter hour (:00, :15, :30, :45), when the short
 * window resets.
 */
export function rateLimitResetAt(headers: Headers, now: number): number {
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return now + Number(retryAfter) * 1000;
  const limit = pair(headers.get("x-ratelimit-limit"));
  const usage = pair(headers.get("x-ratelimit-usage"));
  if (limit && usage && usage[1] >= limit[1]) return (Math.floor(now / DAY) + 1) * DAY;
  return (Math.floor(now / QUARTER) + 1) * QUARTER;
}

const DUPLICATE = /duplicate of (?:activity\s*)?(?:<[^>]*>\s*)?(\d+)/i;

/** Reads an upload status body (POST answer or GET) into the companion's terms. */
// deno-lint-ignore no-explicit-any
export function uploadStatusOf(json: any): UploadState | undefined {
  if (!json || typeof json !== "object" || typeof json.status !== "string") return undefined;
  const uploadId = json.id_str ?? (json.id !== undefined && json.id !== null ? String(json.id) : undefined);
  const error = typeof json.error === "string" && json.error ? stripHtml(json.error) : undefined;
  if (json.status === UPLOAD_STATUS.deleted && uploadId) return { state: "deleted", uploadId };
  if (error || json.status === UPLOAD_STATUS.error) {
    const dup = error ? DUPLICATE.exec(error) : null;
    if (dup) return { state: "duplicate", uploadId, activityId: dup[1], message: error! };
    return { state: "error", uploadId, message: error ?? "The server could not process this file." };
  }
  if (json.status === UPLOAD_STATUS.ready && json.activity_id !== null && json.activity_id !== undefined && uploadId) {
    return { state: "ready", uploadId, activityId: String(json.activity_id) };
  }
  if (uploadId) return { state: "processing", uploadId };
  return undefined;
}

function stripHtml(text: string): string {
  return text.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(
    /&#39;/g,
    "'",
  ).replace(/&amp;/g, "&");
}
