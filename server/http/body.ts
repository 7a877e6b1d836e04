import type { Context } from "hono";
import { ApiError } from "./errors.ts";

export type Body = Record<string, unknown>;

const BODY_KEY = "parsedBody";

/**
 * The request body as an object, parsed once: JSON, URL-encoded or multipart forms (files stay
 * File objects). An empty or absent body is {}. Malformed bodies are a 400.
 */
export async function readBody(c: Context): Promise<Body> {
  const cached = c.get(BODY_KEY as never) as Body | undefined;
  if (cached) return cached;
  let body: Body = {};
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const type = (c.req.header("content-type") ?? "").toLowerCase();
    try {
      if (type.includes("application/json")) {
        const text = await c.req.text();
        if (text.trim() !== "") {
          const parsed = JSON.parse(text);
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
            throw new Error("not an object");
          }
          body = parsed as Body;
        }
      } else if (type.includes("multipart/form-data") || type.includes("application/x-www-form-urlencoded")) {
        body = (await c.req.parseBody({ all: false })) as Body;
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if ((error as { status?: number }).status === 413) throw error;
      throw new ApiError(400, "Bad Request", [{ resource: "Request", field: "body", code: "invalid" }]);
    }
  }
  c.set(BODY_KEY as never, body as never);
  return body;
}
