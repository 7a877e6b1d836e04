/**
 * Writes tests/dropin/client/api.d.ts (not committed): the types openapi-typescript generates from
 * our OpenAPI document, built from the route table as /v3/openapi.json serves it, so that
 * `npm run typecheck` can check the generated-client example (tests/dropin/client/round-trip.ts) on
 * a fresh clone. tests/dropin/generated-client.test.ts generates its own copy from the live server.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { openApiDocument } from "../server/http/openapi.ts";
import { allRoutes, documentedPaths } from "../server/route-table.ts";
import { apiTypes } from "../tests/dropin/client/generate.ts";

const root = resolve(import.meta.dirname ?? ".", "..");
writeFileSync(
  join(root, "tests/dropin/client/api.d.ts"),
  await apiTypes(openApiDocument(allRoutes, "http://localhost", documentedPaths)),
);
