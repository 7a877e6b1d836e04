import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "./errors.ts";
import { boundaryOf, MultipartTooLarge, readMultipart, removeSpooled } from "./multipart.ts";

export type Body = Record<string, unknown>;

const BODY_KEY = "parsedBody";
const SPOOL_KEY = "spool";

interface Spool {
  dir?: string;
  maxBytes: number;
  created: string[];
}

/**
 * Where large multipart files of a request are written while they arrive (`dir`, the OS's temporary
 * directory when undefined), and their removal when the request is answered (unless moved).
 */
export function spooledBodies(dir: string | undefined, maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const spool: Spool = { dir, maxBytes, created: [] };
    c.set(SPOOL_KEY as never, spool as never);
    try {
      await next();
    } finally {
      await removeSpooled(spool.created);
    }
  };
}

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
      } else if (type.includes("multipart/form-data")) {
        // Streamed (server/http/multipart.ts): never parsed whole on the event loop.
        const boundary = boundaryOf(c.req.header("content-type") ?? "");
        if (!boundary) throw new Error("no boundary");
        const spool = (c.get(SPOOL_KEY as never) as Spool | undefined) ?? { maxBytes: Infinity, created: [] };
        body = await readMultipart(c.req.raw.body, boundary, spool);
      } else if (type.includes("application/x-www-form-urlencoded")) {
        body = (await c.req.parseBody({ all: false })) as Body;
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof MultipartTooLarge) {
        throw new ApiError(413, "Payload Too Large", [{ resource: "Request", field: "body", code: "too large" }]);
      }
      if ((error as { status?: number }).status === 413) throw error;
      throw new ApiError(400, "Bad Request", [{ resource: "Request", field: "body", code: "invalid" }]);
    }
  }
  c.set(BODY_KEY as never, body as never);
  return body;
}

/**
 * The parameters of a write (POST, PUT, DELETE): those of the query string, then the body's fields
 * (JSON, URL-encoded or multipart) over them — the body wins on conflict. The real service reads
 * documented parameters from either place, and clients send them in the query string
 * (stravalib's create_activity, upload_activity, update_athlete, starring).
 */
export async function readParams(c: Context): Promise<Body> {
  const body = await readBody(c);
  const query = c.req.query();
  if (Object.keys(query).length === 0) return body;
  return { ...query, ...body }; // spread defines own properties: a "__proto__" key stays data
}
