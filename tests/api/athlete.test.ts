import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("GET /v3/athlete", () => {
  it("answers the token's athlete in the detailed representation", async () => {
    const a = await server.athlete({
      firstname: "Marianne",
      lastname: "Vos",
      sex: "F",
      city: "Babberich",
      country: "Netherlands",
    });
    const res = await server.api("GET", "/v3/athlete", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.body).toMatchObject({
      id: a.id,
      resource_state: 3,
      firstname: "Marianne",
      lastname: "Vos",
      sex: "F",
      city: "Babberich",
      country: "Netherlands",
      premium: false,
    });
    expect(res.body.email).toBeUndefined();
    expect(typeof res.body.created_at).toBe("string");
  });

  it("answers another athlete in the summary representation", async () => {
    const a = await server.athlete();
    const b = await server.athlete({ firstname: "Other" });
    const res = await server.api("GET", `/v3/athletes/${b.id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.resource_state).toBe(2);
    expect(res.body.firstname).toBe("Other");
    expect(res.body.follower_count).toBeUndefined();
  });
});
