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
    const res = await fetch(url, { method, headers, body });
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
