import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

/**
 * The TypeScript types openapi-typescript generates from an OpenAPI document (the api.d.ts that
 * round-trip.ts imports). Binary fields (uploaded files) as Blob, as openapi-typescript's
 * documentation shows for multipart bodies. Used by generated-client.test.ts (from the live document)
 * and by scripts/api-types.ts (for the type check of round-trip.ts, `npm run typecheck`).
 */
export async function apiTypes(document: unknown): Promise<string> {
  return astToString(
    await openapiTS(document as Parameters<typeof openapiTS>[0], {
      transform: (schema) => (schema.format === "binary" ? ts.factory.createTypeReferenceNode("Blob") : undefined),
    }),
  );
}
