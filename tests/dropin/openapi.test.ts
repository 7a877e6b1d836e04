import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";

/**
 * The OpenAPI document (issue #19, first part): operationIds as Strava's, the OAuth2
 * authorization-code scheme and the /oauth routes, and response schemas that the real answers of
 * the operations carrying them validate against (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 */
let s: DropinServer;
// deno-lint-ignore no-explicit-any
let doc: any;
beforeAll(async () => {
  s = await startDropinServer(["Ann"]);
  const res = await s.call("GET", "/v3/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
}, 600_000);
afterAll(() => s?.close());

const METHODS = ["get", "post", "put", "delete"];

describe("OpenAPI document", () => {
  it("names every operation, uniquely, with Strava's operationIds where Strava has the operation", () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Record<string, { operationId?: string }>[]) {
      for (const m of METHODS) if (item[m]) ids.push(item[m].operationId!);
    }
    expect(ids.length).toBeGreaterThan(60);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths["/v3/athlete"].get.operationId).toBe("getLoggedInAthlete");
    expect(doc.paths["/v3/activities/{id}"].get.operationId).toBe("getActivityById");
    expect(doc.paths["/v3/athletes/{id}/stats"].get.operationId).toBe("getStats");
    expect(doc.paths["/v3/athlete/zones"].get.operationId).toBe("getLoggedInAthleteZones");
    expect(doc.paths["/v3/activities/{id}/streams"].get.operationId).toBe("getActivityStreams");
    expect(doc.paths["/v3/uploads"].post.operationId).toBe("createUpload");
  });

  it("declares the OAuth2 authorization-code scheme on our URLs with every scope, and documents /oauth", () => {
    const base = s.server.url.replace(/\/$/, "");
    const flow = doc.components.securitySchemes.strava_oauth.flows.authorizationCode;
    expect(flow.authorizationUrl).toBe(`${base}/oauth/authorize`);
    expect(flow.tokenUrl).toBe(`${base}/oauth/token`);
    expect(Object.keys(flow.scopes).sort()).toEqual(
      ["activity:read", "activity:read_all", "activity:write", "profile:read_all", "profile:write", "read", "read_all"],
    );
    expect(doc.paths["/oauth/token"].post.operationId).toBe("token");
    expect(doc.paths["/oauth/authorize"].get.parameters.map((p: { name: string }) => p.name)).toContain("scope");
    expect(doc.paths["/v3/athlete/zones"].get.security).toContainEqual({ strava_oauth: ["activity:read_all"] });
  });

  it("validates the real answers of the operations with a response schema against the document", async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, "openapi.json");
    const schemaOf = (path: string) => ({
      $ref: `openapi.json#/paths/${path.replaceAll("/", "~1")}/get/responses/200/content/application~1json/schema`,
    });
    const put = await s.call("PUT", "/v3/athlete", { token: s.people.Ann.token, form: { ftp: 240 } });
    expect(put.status).toBe(200);
    const answers: [string, string][] = [
      ["/v3/athletes/{id}/stats", `/v3/athletes/${s.people.Ann.id}/stats`],
      ["/v3/athlete/zones", "/v3/athlete/zones"],
    ];
    for (const [template, path] of answers) {
      const validate = ajv.compile(schemaOf(template));
      const res = await s.call("GET", path, { token: s.people.Ann.token });
      expect(res.status).toBe(200);
      expect(validate(res.body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
      // The schema can fail: the same answer without a required member does not validate.
      const broken = { ...res.body };
      delete broken[Object.keys(broken)[0]];
      expect(validate(broken), `${path} without ${Object.keys(res.body)[0]}`).toBe(false);
    }
  });

  it("validates the real streams answers (keyed, array, down-sampled) against the document", async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, "openapi.json");
    const validate = ajv.compile({ $ref: "openapi.json#/components/schemas/StreamSet" });
    expect(doc.paths["/v3/activities/{id}/streams"].get.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/StreamSet",
    });
    const id = await upload(s.call, s.people.Ann.token, "gpx/strava-export-cycling-power-hr-cad-atemp.gpx");
    const keys = "time,distance,latlng,altitude,velocity_smooth,heartrate,cadence,watts,temp,moving,grade_smooth";
    for (
      const query of [{ keys, key_by_type: true }, { keys }, {
        keys,
        key_by_type: true,
        resolution: "low",
        series_type: "time",
      }]
    ) {
      const res = await s.call("GET", `/v3/activities/${id}/streams`, { token: s.people.Ann.token, query });
      expect(res.status).toBe(200);
      expect(validate(res.body), `${JSON.stringify(query)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(
        true,
      );
    }
    // The schema can fail: a stream without its series_type, or an unknown key.
    const res = await s.call("GET", `/v3/activities/${id}/streams`, {
      token: s.people.Ann.token,
      query: { keys: "time", key_by_type: true },
    });
    expect(validate({ ...res.body, time: { ...res.body.time, series_type: undefined } })).toBe(false);
    expect(validate({ ...res.body, power: res.body.time })).toBe(false);
  });
});
