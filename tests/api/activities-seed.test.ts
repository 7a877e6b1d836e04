import { afterAll, beforeAll, expect, it } from "vitest";
import { demoBanner, seedDemo } from "../../server/seed/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it("the demo seed creates activities with kudos and a comment", async () => {
  const demo = await seedDemo(server.platform);
  expect(demo).toBeDefined();
  const list = await server.api("GET", "/v3/athlete/activities", { token: demo!.token });
  expect(list.status).toBe(200);
  const ride = list.body.find((a: { name: string }) => a.name === "Morning ride to Richmond");
  expect(ride).toMatchObject({
    kudos_count: 2,
    comment_count: 1,
    manual: true,
    gear_id: expect.stringMatching(/^b\d+$/),
  });
  const comments = await server.api("GET", `/v3/activities/${ride.id}/comments`, { token: demo!.token });
  expect(comments.body.map((c: { text: string }) => c.text)).toEqual(["Chapeau!"]);
  expect(demoBanner(demo!, server.url)).toContain(`/v3/activities/${ride.id}`);
});
