import { z } from "zod";
import type { AnyRoute } from "./route.ts";
import { oauthScheme, operationIdOf, ResponseSchemas, scopesOf } from "./openapi-extras.ts";

function jsonSchema(schema: unknown): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The document's tags (the spec's resource families), in reading order. */
const TAGS = [
  { name: "Athlete", description: "The authenticated athlete, other athletes, stats, zones and privacy zones." },
  { name: "Activities", description: "Activities, laps, zones, comments, kudos and photos." },
  { name: "Streams", description: "Time series of activities and segment efforts." },
  { name: "Segments", description: "Segments, efforts, leaderboards, explore and stars." },
  { name: "Clubs", description: "Clubs, members, admins and club feeds." },
  { name: "Gear", description: "Bikes and shoes." },
  { name: "Uploads", description: "Device file uploads (FIT, TCX, GPX) and archive imports." },
  { name: "Challenges", description: "Extension: challenges and their leaderboards." },
  { name: "Heatmaps", description: "Extension: personal heatmaps." },
  { name: "Routes", description: "Routes: planned lines, exported as GPX or TCX." },
  { name: "Webhooks", description: "Push subscriptions (application credentials, not athlete tokens)." },
  { name: "OAuth", description: "Authorization code flow: authorize, token exchange and refresh, deauthorize." },
];

/** The OpenAPI 3.1 document, generated from the same route table and zod schemas the server runs. */
/** Paths served outside the route table (e.g. the OAuth endpoints), documented by their family. */
export type DocumentedPaths = (schemas: ResponseSchemas) => Record<string, unknown>;

export function openApiDocument(
  routes: AnyRoute[],
  serverUrl: string,
  documented: readonly DocumentedPaths[] = [],
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas = new ResponseSchemas();
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const parameters: unknown[] = [];
    for (const [where, schema] of [["path", route.params], ["query", route.query]] as const) {
      if (!schema) continue;
      const js = jsonSchema(schema);
      const props = (js.properties ?? {}) as Record<string, unknown>;
      const required = new Set((js.required ?? []) as string[]);
      for (const [name, prop] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === "path" || required.has(name), schema: prop });
      }
    }
    const status = route.status ?? 200;
    const success: Record<string, unknown> = { description: status === 204 ? "No content" : "Success" };
    if (route.response) {
      const schema = schemas.of(route.response);
      const media = typeof schema.contentMediaType === "string" ? schema.contentMediaType : "application/json";
      success.content = { [media]: { schema } };
    }
    const operation: Record<string, unknown> = {
      operationId: operationIdOf(route),
      summary: route.summary,
      tags: [route.tag],
      parameters,
      responses: {
        [String(status)]: success,
        "4XX": {
          description: "Fault: {message, errors:[{resource, field, code}]}",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Fault" } } },
        },
      },
    };
    if (route.description) operation.description = route.description;
    if (route.auth === "token") {
      operation.security = [{ bearer: [route.permission ?? "read"] }, {
        strava_oauth: scopesOf(route.permission ?? "read"),
      }];
    }
    if (route.body) {
      const schema = jsonSchema(route.body);
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      // A file field (a Blob in zod, unrepresentable in JSON Schema): binary content, multipart only.
      const files = Object.keys(props).filter((name) => Object.keys(props[name]).length === 0);
      for (const name of files) {
        props[name] = { type: "string", format: "binary", contentMediaType: "application/octet-stream" };
      }
      // Every field but a file may come in the query string instead (server/http/body.ts readParams).
      const declared = new Set(parameters.map((p) => (p as { name: string }).name));
      for (const [name, prop] of Object.entries(props)) {
        if (files.includes(name) || declared.has(name)) continue;
        parameters.push({
          name,
          in: "query",
          required: false,
          schema: prop,
          description: "A body field, also accepted in the query string (the body wins).",
        });
      }
      operation.requestBody = {
        content: files.length ? { "multipart/form-data": { schema } } : {
          "application/x-www-form-urlencoded": { schema },
          "application/json": { schema },
          "multipart/form-data": { schema },
        },
      };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Fitness platform API v3",
      version: "3",
      description:
        "Strava-style v3 API of a self-hosted, event-sourced fitness platform. This document describes /v3, which " +
        "answers exactly as the API contract writes it. Every /v3 path also answers under /api/v3 (and, with " +
        "PUBLIC_API_URL, on the API host without a prefix) in Strava's dialect, for Strava's own clients: there a summary " +
        "activity also carries device_name, before/after/page combine, a club's activities are Strava's ClubActivity and a " +
        "string without a value is null — every difference and its reason is listed in docs/app-developers.md, " +
        "'Two dialects', and on [Connect your app](/docs/connect#dialects). " +
        "The /oauth endpoints also answer under /v3/oauth and /api/v3/oauth. Write operations read their fields from the " +
        "body or the query string (the body wins). " +
        "New here? [Connect your app](/docs/connect): register, authorize, exchange the code, refresh, call.",
    },
    servers: [{ url: serverUrl }],
    paths: { ...paths, ...Object.assign({}, ...documented.map((describe) => describe(schemas))) },
    tags: TAGS,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "Access token (also access_token query or body field)" },
        strava_oauth: oauthScheme(serverUrl),
      },
      schemas: {
        ...Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))),
        Fault: {
          type: "object",
          properties: {
            message: { type: "string" },
            errors: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  resource: { type: "string" },
                  field: { type: "string" },
                  code: { type: "string" },
                },
              },
            },
          },
        },
      },
    },
  };
}
