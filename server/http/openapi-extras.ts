import { z } from "zod";
import type { Permission } from "./auth.ts";
export { operationIdOf } from "./operation-ids.ts";

/**
 * Response schemas as JSON Schema (what the server sends: zod's output side), with every named
 * model (the families' schema.ts files, ids in zod's global registry) collected once into `components`
 * and referenced as `#/components/schemas/<id>`.
 */
export class ResponseSchemas {
  readonly components: Record<string, unknown> = {};

  /** The schema of one response body; named models it uses land in `components`. */
  of(schema: z.ZodType): Record<string, unknown> {
    const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, {
      io: "output",
      unrepresentable: "any",
    }) as Record<string, unknown> & { $defs?: Record<string, unknown> };
    for (const [id, def] of Object.entries($defs ?? {})) this.components[id] = relink(def);
    const root = relink(rest) as Record<string, unknown>;
    // A response that is itself a named model: a reference to its component.
    const id = z.globalRegistry.get(schema)?.id;
    if (typeof id === "string" && root.$ref === undefined) {
      const { id: _id, ...model } = root;
      this.components[id] = model;
      return { $ref: `#/components/schemas/${id}` };
    }
    return root;
  }
}

/**
 * `#/$defs/X` (zod's local definitions) → `#/components/schemas/X`, everywhere in a schema; and
 * integers without zod's ±(2^53 − 1) bounds: 64-bit ids (segment efforts) lie above them.
 */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value && typeof value === "object") {
    const integer = (value as { type?: unknown }).type === "integer";
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k, v]) =>
          !(integer && (k === "minimum" || k === "maximum") && Math.abs(v as number) === Number.MAX_SAFE_INTEGER)
        )
        .map(([k, v]) => [
          k,
          k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\//, "#/components/schemas/") : relink(v),
        ]),
    );
  }
  return value;
}

/** Strava's OAuth scopes and what each grants here. */
export const OAUTH_SCOPES: Record<string, string> = {
  read: "Public segments, routes, profile, club feeds and leaderboards",
  read_all: "Private routes, segments and events",
  "profile:read_all": "The full profile even when only followers may see it; zones",
  "profile:write": "Update weight and FTP; star segments",
  "activity:read": "Activities visible to Everyone and Followers (privacy zones applied)",
  "activity:read_all": "Also Only Me activities, without privacy zones",
  "activity:write": "Create manual activities, upload and edit activities",
};

/** The scope names a route's permission is satisfied by, for the OAuth2 security requirement. */
export function scopesOf(permission: Permission): string[] {
  return { read: ["read"], write: ["activity:write"], view_private: ["activity:read_all"] }[permission];
}

/** The OAuth 2.0 authorization-code scheme with our authorize and token URLs. */
export function oauthScheme(serverUrl: string) {
  const base = serverUrl.replace(/\/$/, "");
  return {
    type: "oauth2",
    description: "Authorization code flow (optional PKCE). Scopes are comma-separated, as Strava's.",
    flows: {
      authorizationCode: {
        authorizationUrl: `${base}/oauth/authorize`,
        tokenUrl: `${base}/oauth/token`,
        refreshUrl: `${base}/oauth/token`,
        scopes: OAUTH_SCOPES,
      },
    },
  };
}
