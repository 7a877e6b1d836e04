// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { parseJsonExact } from "../../shared/json.ts";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** Sent as multipart/form-data. */
  multipart?: FormData;
  headers?: Record<string, string>;
  /** "manual": a redirect is answered as it is (status and Location), not followed. */
  redirect?: RequestRedirect;
}

export type Api = (method: string, path: string, options?: CallOptions) => Promise<ApiResponse>;

/** Calls the API over real HTTP; bodies are parsed keeping 64-bit integers exact. */
export function api(baseUrl: string): Api {
  return async (method, path, options = {}) => {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: BodyInit | undefined;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) if (v !== undefined) params.set(k, String(v));
      body = params;
    } else if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.multipart) {
      body = options.multipart;
    }
    const res = await fetch(url, { method, headers, body, redirect: options.redirect });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text && (res.headers.get("content-type") ?? "").includes("json")) {
      try {
        parsed = parseJsonExact(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };
}

/** A device file to upload: its bytes, file name and data_type (fit, gpx.gz, …). */
export interface UploadFile {
  bytes: Uint8Array | string;
  name: string;
  dataType: string;
}

/**
 * Uploads a device file over HTTP (POST /v3/uploads, with any further form fields) and polls the
 * upload until its activity is ready; the activity id. Throws on a refused or failed upload.
 * `kick` is called between polls (an in-process server's job runner, to look for work at once).
 */
export async function uploadUntilReady(
  call: Api,
  token: string,
  file: UploadFile,
  fields: Record<string, string> = {},
  kick?: () => void,
): Promise<number> {
  const form = new FormData();
  form.set("file", new Blob([file.bytes as BlobPart]), file.name);
  form.set("data_type", file.dataType);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await call("POST", "/v3/uploads", { token, multipart: form });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
  for (let i = 0; i < 600; i++) {
    const status = await call("GET", `/v3/uploads/${res.body.id}`, { token });
    if (status.body.error) throw new Error(`upload failed: ${status.body.error}`);
    if (status.body.activity_id) return status.body.activity_id as number;
    kick?.();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("upload did not finish");
}
