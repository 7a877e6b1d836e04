import { Ajv2020 } from "ajv/dist/2020.js";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { polyline } from "../helpers/polyline.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/deno.ts";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";

/**
 * Routes (issue #19) over HTTP on the server as `npm start` runs it: created from an activity and
 * from drawn lines (the POST /v3/routes extension and the CLI), read as Strava's Route, listed,
 * streamed, exported as GPX 1.1 and TCX v2 Course files whose structure is checked strictly and
 * which our own upload accepts back with the same distance; every JSON answer validated against our
 * OpenAPI document (ajv); bad input gets the documented 400 and writes nothing.
 */
const RIDE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";
const RUN = "gpx/strava-export-running-hr.gpx";
/** Re-uploaded exports must measure the route's distance within this fraction. */
const EXPORT_DISTANCE_TOLERANCE = 0.01;

let s: DropinServer;
// deno-lint-ignore no-explicit-any
let doc: any;
let ride = 0;
let run = 0;
// deno-lint-ignore no-explicit-any
let rideActivity: any;
// deno-lint-ignore no-explicit-any
let fromRide: any;

beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob", "Cat"]);
  ride = await upload(s.call, s.people.Ann.token, RIDE);
  run = await upload(s.call, s.people.Ann.token, RUN, { activity_type: "run" });
  rideActivity = (await s.call("GET", `/v3/activities/${ride}`, { token: s.people.Ann.token })).body;
  doc = (await s.call("GET", "/v3/openapi.json")).body;
}, 300_000);
afterAll(() => s?.close());

let ajv: Ajv2020 | undefined;
/** Validates an answer against the response schema our own document gives the operation (its $refs resolved in the document). */
function expectValid(path: string, method: string, status: number, body: unknown) {
  const schema = doc.paths[path]?.[method]?.responses?.[String(status)]?.content?.["application/json"]?.schema;
  expect(schema, `${method} ${path} has a response schema`).toBeDefined();
  if (!ajv) {
    ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, "openapi.json");
  }
  const pointer = ["paths", path, method, "responses", String(status), "content", "application/json", "schema"]
    .map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  const validate = ajv.compile({ $ref: `openapi.json#/${pointer}` });
  expect(validate(body), `${method} ${path}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

describe("a route cut from an activity", () => {
  it("is created through the extension endpoint, read as Strava's Route and listed", async () => {
    const { Ann } = s.people;
    const res = await s.call("POST", "/v3/routes", {
      token: Ann.token,
      json: { name: "Saturday loop", description: "From my ride", activity_id: ride },
    });
    expect(res.status, res.text).toBe(201);
    expectValid("/v3/routes", "post", 201, res.body);
    fromRide = res.body;
    expect(fromRide).toMatchObject({
      name: "Saturday loop",
      description: "From my ride",
      type: 1,
      sub_type: 1,
      private: false,
      starred: false,
      id_str: String(fromRide.id),
      athlete: { id: Ann.id, firstname: "Ann" },
      segments: [],
      waypoints: [],
    });
    // The device's track, re-measured: the route's distance is the activity's within 2 % (the
    // activity's distance is smoothed and its stops are not travelled twice), its climb within 30 %.
    expect(Math.abs(fromRide.distance - rideActivity.distance) / rideActivity.distance).toBeLessThan(0.02);
    expect(rideActivity.total_elevation_gain).toBeGreaterThan(10);
    expect(Math.abs(fromRide.elevation_gain - rideActivity.total_elevation_gain) / rideActivity.total_elevation_gain)
      .toBeLessThan(0.3);
    // Estimated moving time: the activity's own pace over the route's distance.
    expect(fromRide.estimated_moving_time).toBe(
      Math.round(fromRide.distance * rideActivity.moving_time / rideActivity.distance),
    );
    expect(Math.abs(fromRide.timestamp - Date.parse(fromRide.created_at) / 1000)).toBeLessThan(1);
    const points = polyline.decode(fromRide.map.polyline);
    const summary = polyline.decode(fromRide.map.summary_polyline);
    expect(points.length).toBeGreaterThan(1000);
    expect(summary.length).toBeGreaterThan(10);
    expect(summary.length).toBeLessThan(points.length);
    expect(summary[0]).toEqual(points[0]);

    const detail = await s.call("GET", `/v3/routes/${fromRide.id}`, { token: Bob().token });
    expect(detail.status).toBe(200);
    expectValid("/v3/routes/{id}", "get", 200, detail.body);
    expect(detail.body).toEqual({ ...fromRide, athlete: detail.body.athlete });
    const listed = await s.call("GET", `/v3/athletes/${Ann.id}/routes`, { token: Bob().token });
    expect(listed.status).toBe(200);
    expectValid("/v3/athletes/{id}/routes", "get", 200, listed.body);
    expect(listed.body.map((r: { id: number }) => r.id)).toEqual([fromRide.id]);
  });

  it("has Strava's route streams: latlng, distance and altitude, aligned", async () => {
    const res = await s.call("GET", `/v3/routes/${fromRide.id}/streams`, { token: s.people.Ann.token });
    expect(res.status).toBe(200);
    expectValid("/v3/routes/{id}/streams", "get", 200, res.body);
    expect(res.body.map((x: { type: string }) => x.type)).toEqual(["latlng", "distance", "altitude"]);
    const [latlng, distance, altitude] = res.body;
    expect(latlng.data).toEqual(polyline.decode(fromRide.map.polyline));
    expect(distance.data).toHaveLength(latlng.data.length);
    expect(altitude.data).toHaveLength(latlng.data.length);
    expect(distance.data[0]).toBe(0);
    expect(Math.abs(distance.data[distance.data.length - 1] - fromRide.distance)).toBeLessThan(1);
    for (const x of res.body) {
      expect(x).toMatchObject({ series_type: "distance", original_size: latlng.data.length, resolution: "high" });
    }
    const keyed = await s.call("GET", `/v3/routes/${fromRide.id}/streams`, {
      token: s.people.Ann.token,
      query: { key_by_type: true },
    });
    expectValid("/v3/routes/{id}/streams", "get", 200, keyed.body);
    expect(Object.keys(keyed.body)).toEqual(["latlng", "distance", "altitude"]);
  });

  it("takes a run's type from the activity", async () => {
    const res = await s.call("POST", "/v3/routes", {
      token: s.people.Ann.token,
      form: { name: "Run route", activity_id: run, sub_type: 4 },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ type: 2, sub_type: 4 });
  });
});

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  isArray: (name) => ["trkpt", "Trackpoint", "Course", "trk", "Lap", "Track"].includes(name),
});

/** Which child elements an element's opening tag is followed by, in document order (for schema order checks). */
function childOrder(xml: string, parent: string): string[] {
  const open = xml.search(new RegExp(`<${parent}[\\s>]`));
  const close = xml.indexOf(`</${parent}>`, open);
  const inner = xml.slice(xml.indexOf(">", open) + 1, close);
  const names: string[] = [];
  let depth = 0;
  for (const m of inner.matchAll(/<(\/?)([A-Za-z_][\w.-]*)[^>]*?(\/?)>/g)) {
    if (m[1]) depth--;
    else {
      if (depth === 0) names.push(m[2]);
      if (!m[3]) depth++;
    }
  }
  return names;
}

function increasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v > values[i - 1]);
}

describe("exports", () => {
  it("GPX 1.1: well-formed, the schema's structure and order, every visible point with a time", async () => {
    const res = await s.call("GET", `/v3/routes/${fromRide.id}/export_gpx`, { token: s.people.Ann.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gpx+xml; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="Saturday_loop.gpx"');
    expect(XMLValidator.validate(res.text)).toBe(true);
    const gpx = parser.parse(res.text).gpx;
    expect(gpx["@version"]).toBe("1.1");
    expect(gpx["@xmlns"]).toBe("http://www.topografix.com/GPX/1/1");
    expect(typeof gpx["@creator"]).toBe("string");
    // gpxType: metadata?, wpt*, rte*, trk*, extensions?; metadataType: name, desc, author, copyright, link, time…; trkType: name … type … trkseg.
    expect(childOrder(res.text, "gpx")).toEqual(["metadata", "trk"]);
    expect(childOrder(res.text, "metadata")).toEqual(["name", "desc", "link", "time"]);
    expect(childOrder(res.text, "trk")).toEqual(["name", "type", "trkseg"]);
    const pts = gpx.trk[0].trkseg.trkpt;
    const points = polyline.decode(fromRide.map.polyline);
    expect(pts).toHaveLength(points.length);
    expect(pts.map((p: Record<string, string>) => [Number(p["@lat"]), Number(p["@lon"])])).toEqual(points);
    expect(childOrder(res.text.slice(res.text.indexOf("<trkpt")), "trkpt")).toEqual(["ele", "time"]);
    const times = pts.map((p: { time: string }) => Date.parse(p.time));
    expect(times.every(Number.isFinite)).toBe(true);
    expect(increasing(times)).toBe(true);
    // Times at the route's estimated pace.
    expect(Math.abs((times[times.length - 1] - times[0]) / 1000 - fromRide.estimated_moving_time)).toBeLessThan(2);
  });

  it("TCX v2: a Course in the schema's order, a name of at most 15 characters, timed points", async () => {
    const res = await s.call("GET", `/v3/routes/${fromRide.id}/export_tcx`, { token: s.people.Ann.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.garmin.tcx+xml; charset=utf-8");
    expect(XMLValidator.validate(res.text)).toBe(true);
    const db = parser.parse(res.text).TrainingCenterDatabase;
    expect(db["@xmlns"]).toBe("http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2");
    expect(childOrder(res.text, "TrainingCenterDatabase")).toEqual(["Courses"]);
    expect(childOrder(res.text, "Course")).toEqual(["Name", "Lap", "Track"]);
    // CourseLap_t: TotalTimeSeconds, DistanceMeters, BeginPosition?, BeginAltitude?, EndPosition?, EndAltitude?, …, Intensity.
    expect(childOrder(res.text, "Lap")).toEqual([
      "TotalTimeSeconds",
      "DistanceMeters",
      "BeginPosition",
      "EndPosition",
      "Intensity",
    ]);
    const course = db.Courses.Course[0];
    expect(String(course.Name)).toBe("Saturday loop");
    expect(course.Lap[0].Intensity).toBe("Active");
    const tps = course.Track[0].Trackpoint;
    expect(tps).toHaveLength(polyline.decode(fromRide.map.polyline).length);
    expect(childOrder(res.text.slice(res.text.indexOf("<Trackpoint>")), "Trackpoint")).toEqual([
      "Time",
      "Position",
      "AltitudeMeters",
      "DistanceMeters",
    ]);
    expect(increasing(tps.map((t: { Time: string }) => Date.parse(t.Time)))).toBe(true);
    const along = tps.map((t: { DistanceMeters: number }) => Number(t.DistanceMeters));
    expect(along.every((d: number, i: number) => i === 0 || d >= along[i - 1])).toBe(true);
    expect(Math.abs(along[along.length - 1] - fromRide.distance)).toBeLessThan(1);
    expect(Math.abs(Number(course.Lap[0].DistanceMeters) - fromRide.distance)).toBeLessThan(1);
  });

  it("are accepted back by our own upload, with the route's distance", async () => {
    const { Ann, Bob: bob } = s.people;
    const gpx = await s.call("GET", `/v3/routes/${fromRide.id}/export_gpx`, { token: Ann.token });
    const tcx = await s.call("GET", `/v3/routes/${fromRide.id}/export_tcx`, { token: Ann.token });
    // Two athletes: the two files describe the same ride at the same time (one athlete's second would be a duplicate).
    const fromGpx = await upload(s.call, Ann.token, { bytes: new TextEncoder().encode(gpx.text), name: "route.gpx" });
    const fromTcx = await upload(s.call, bob.token, { bytes: new TextEncoder().encode(tcx.text), name: "route.tcx" });
    const a = (await s.call("GET", `/v3/activities/${fromGpx}`, { token: Ann.token })).body;
    const b = (await s.call("GET", `/v3/activities/${fromTcx}`, { token: bob.token })).body;
    const gpxOff = Math.abs(a.distance - fromRide.distance) / fromRide.distance;
    const tcxOff = Math.abs(b.distance - fromRide.distance) / fromRide.distance;
    console.log(
      `routes: route ${fromRide.distance} m; GPX re-upload ${a.distance} m (${
        (gpxOff * 100).toFixed(2)
      } %), TCX re-upload ${b.distance} m (${(tcxOff * 100).toFixed(2)} %)`,
    );
    expect(gpxOff).toBeLessThan(EXPORT_DISTANCE_TOLERANCE);
    expect(tcxOff).toBeLessThan(EXPORT_DISTANCE_TOLERANCE);
    expect(a.type).toBe("Ride");
    // The ride starts when the route was made (start_date has whole seconds).
    expect(Math.abs(Date.parse(a.start_date) - Date.parse(fromRide.created_at))).toBeLessThanOrEqual(1000);
  }, 180_000);
});

function Bob() {
  return s.people.Bob;
}

describe("a drawn line", () => {
  const line: [number, number][] = [[47.3769, 8.5417], [47.3800, 8.5450], [47.3850, 8.5480], [47.3900, 8.5400]];

  it("as latlng or as an encoded polyline: measured, no elevation unless given, a drawn pace", async () => {
    const { Ann } = s.people;
    const a = await s.call("POST", "/v3/routes", {
      token: Ann.token,
      json: { name: "Drawn", latlng: line, type: "run" },
    });
    expect(a.status, a.text).toBe(201);
    expectValid("/v3/routes", "post", 201, a.body);
    const b = await s.call("POST", "/v3/routes", {
      token: Ann.token,
      form: { name: "Drawn too", polyline: polyline.encode(line) },
    });
    expect(b.status, b.text).toBe(201);
    // Haversine legs computed here (mean radius 6371 km) against the server's own measure.
    const R = 6371000, rad = Math.PI / 180;
    let metres = 0;
    for (let i = 1; i < line.length; i++) {
      const [p, q] = [line[i - 1], line[i]];
      const h = Math.sin(((q[0] - p[0]) * rad) / 2) ** 2 +
        Math.cos(p[0] * rad) * Math.cos(q[0] * rad) * Math.sin(((q[1] - p[1]) * rad) / 2) ** 2;
      metres += 2 * R * Math.asin(Math.sqrt(h));
    }
    expect(Math.abs(a.body.distance - metres)).toBeLessThan(1);
    expect(b.body.distance).toBe(a.body.distance);
    expect(a.body).toMatchObject({
      type: 2,
      elevation_gain: 0,
      estimated_moving_time: Math.round(a.body.distance / (10 / 3.6)),
    });
    expect(b.body).toMatchObject({
      type: 1,
      elevation_gain: 0,
      estimated_moving_time: Math.round(b.body.distance / (25 / 3.6)),
    });
    const streams = await s.call("GET", `/v3/routes/${a.body.id}/streams`, {
      token: Ann.token,
      query: { key_by_type: true },
    });
    expect(Object.keys(streams.body)).toEqual(["latlng", "distance"]);
    expect(streams.body.latlng.data).toEqual(line);
    const withAltitude = await s.call("POST", "/v3/routes", {
      token: Ann.token,
      json: { name: "Hilly", latlng: line, altitude: [400, 430, 420, 470] },
    });
    expect(withAltitude.status, withAltitude.text).toBe(201);
    expect(withAltitude.body.elevation_gain).toBe(80);
    const gpx = await s.call("GET", `/v3/routes/${withAltitude.body.id}/export_gpx`, { token: Ann.token });
    expect([...gpx.text.matchAll(/<ele>([\d.]+)<\/ele>/g)].map((m) => Number(m[1]))).toEqual([400, 430, 420, 470]);
  });

  it("bad input: the documented 400 naming the field, and nothing written", async () => {
    const { Ann, Bob: bob } = s.people;
    const before =
      (await s.call("GET", `/v3/athletes/${Ann.id}/routes`, { token: Ann.token, query: { per_page: 200 } })).body
        .length;
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ latlng: line }, 400, "name", "missing"],
      [{ name: "x" }, 400, "activity_id", "missing"],
      [{ name: "x", latlng: line, polyline: "abc" }, 400, "polyline", "invalid"],
      [{ name: "x", latlng: [[1, 2]] }, 400, "latlng", "invalid"],
      [{ name: "x", latlng: [[1, 2], [1, 2]] }, 400, "latlng", "invalid"],
      [{ name: "x", latlng: [[91, 2], [1, 2]] }, 400, "latlng", "invalid"],
      [{ name: "x", latlng: "not json" }, 400, "latlng", "invalid"],
      [{ name: "x", polyline: "\u007f\u007f" }, 400, "polyline", "invalid"],
      [{ name: "x", latlng: line, altitude: [1, 2] }, 400, "altitude", "invalid"],
      [{ name: "x", latlng: line, type: 3 }, 400, "type", "invalid"],
      [{ name: "x", latlng: line, sub_type: 9 }, 400, "sub_type", "invalid"],
      [{ name: "x", activity_id: 999_999 }, 404, "id", "invalid"],
    ];
    for (const [json, status, field, code] of cases) {
      const res = await s.call("POST", "/v3/routes", { token: Ann.token, json });
      expect([JSON.stringify(json), res.status], res.text).toEqual([JSON.stringify(json), status]);
      expect(res.body.errors, JSON.stringify(json)).toContainEqual(expect.objectContaining({ field, code }));
      expect(res.text).not.toMatch(/\bat .*\.ts:\d+/);
    }
    expect((await s.call("POST", "/v3/routes", { token: Ann.readToken, json: { name: "x", latlng: line } })).status)
      .toBe(401);
    expect((await s.call("GET", "/v3/routes/123456789", { token: Ann.token })).status).toBe(404);
    expect((await s.call("GET", "/v3/routes/abc", { token: Ann.token })).status).toBe(400);
    expect((await s.call("GET", `/v3/routes/${fromRide.id}`)).status).toBe(401);
    const after =
      (await s.call("GET", `/v3/athletes/${Ann.id}/routes`, { token: Ann.token, query: { per_page: 200 } })).body
        .length;
    expect(after).toBe(before);
    // Deleting: someone else's route is refused; one's own is gone afterwards.
    const mine = await s.call("POST", "/v3/routes", { token: Ann.token, json: { name: "Short-lived", latlng: line } });
    expect((await s.call("DELETE", `/v3/routes/${mine.body.id}`, { token: bob.token })).status).toBe(403);
    expect((await s.call("DELETE", `/v3/routes/${mine.body.id}`, { token: Ann.token })).status).toBe(204);
    expect((await s.call("GET", `/v3/routes/${mine.body.id}`, { token: Ann.token })).status).toBe(404);
    expect((await s.call("DELETE", `/v3/routes/${mine.body.id}`, { token: Ann.token })).status).toBe(404);
  });
});

describe("private routes and scopes", () => {
  it("a private route reaches only its owner's token with read_all", async () => {
    const { Ann, Bob: bob } = s.people;
    const res = await s.call("POST", "/v3/routes", {
      token: Ann.token,
      form: { name: "Secret route", activity_id: ride, private: 1 },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.private).toBe(true);
    const id = res.body.id;
    for (
      const path of [
        `/v3/routes/${id}`,
        `/v3/routes/${id}/streams`,
        `/v3/routes/${id}/export_gpx`,
        `/v3/routes/${id}/export_tcx`,
      ]
    ) {
      expect((await s.call("GET", path, { token: Ann.token })).status, path).toBe(200);
      for (const [who, token] of [["Bob", bob.token], ["Ann without read_all", Ann.readToken]]) {
        const denied = await s.call("GET", path, { token });
        expect([who, path, denied.status]).toEqual([who, path, 404]);
        expect(denied.body).toEqual({
          message: "Record Not Found",
          errors: [{ resource: "Route", field: "id", code: "invalid" }],
        });
      }
    }
    const names = async (token: string) =>
      (await s.call("GET", `/v3/athletes/${Ann.id}/routes`, { token, query: { per_page: 200 } })).body.map((
        r: { name: string },
      ) => r.name);
    expect(await names(Ann.token)).toContain("Secret route");
    expect(await names(Ann.readToken)).not.toContain("Secret route");
    expect(await names(bob.token)).not.toContain("Secret route");
    expect(await names(bob.token)).toContain("Saturday loop");
  });
});

describe("the CLI", () => {
  it("creates, lists and deletes routes (inside the running server), and refuses bad options clearly", async () => {
    const { Cat } = s.people;
    const created = await runCli([
      "route",
      "create",
      "--athlete",
      String(Cat.id),
      "--name",
      "CLI route",
      "--points",
      "47.37,8.54,400;47.38,8.55,425;47.39,8.54,410",
      "--json",
    ], { DATA_DIR: s.server.dataDir });
    expect(created.code, created.stderr).toBe(0);
    const route = JSON.parse(created.stdout);
    expect(route).toMatchObject({ name: "CLI route", elevation_gain: 25, private: false, athlete: { id: Cat.id } });
    const listed = await runCli(["route", "list", "--athlete", String(Cat.id)], { DATA_DIR: s.server.dataDir });
    expect(listed.stdout).toContain(`route ${route.id}`);
    const over = await s.call("GET", `/v3/routes/${route.id}`, { token: Cat.token });
    expect(over.body.name).toBe("CLI route");
    const bad = await runCli(["route", "create", "--athlete", String(Cat.id), "--name", "x", "--points", "1,2"], {
      DATA_DIR: s.server.dataDir,
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/two points/);
    expect(bad.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    const removed = await runCli(["route", "delete", "--athlete", String(Cat.id), "--id", String(route.id)], {
      DATA_DIR: s.server.dataDir,
    });
    expect(removed.code, removed.stderr).toBe(0);
    expect((await s.call("GET", `/v3/routes/${route.id}`, { token: Cat.token })).status).toBe(404);
  }, 180_000);
});

describe("the OpenAPI document and the log", () => {
  it("names the operations as Strava does and documents creation as an extension", () => {
    expect(doc.paths["/v3/routes/{id}"].get.operationId).toBe("getRouteById");
    expect(doc.paths["/v3/athletes/{id}/routes"].get.operationId).toBe("getRoutesByAthleteId");
    expect(doc.paths["/v3/routes/{id}/streams"].get.operationId).toBe("getRouteStreams");
    expect(doc.paths["/v3/routes/{id}/export_gpx"].get.operationId).toBe("getRouteAsGPX");
    expect(doc.paths["/v3/routes/{id}/export_tcx"].get.operationId).toBe("getRouteAsTCX");
    const create = doc.paths["/v3/routes"].post;
    expect(create.summary).toMatch(/^Extension/);
    expect(create.description).toMatch(/activity_id/);
    expect(Object.keys(create.requestBody.content["application/json"].schema.properties)).toEqual(
      expect.arrayContaining(["name", "activity_id", "polyline", "latlng", "altitude", "private", "type", "sub_type"]),
    );
    expect(doc.paths["/v3/routes/{id}"].get.security).toContainEqual({ bearer: ["read"] });
  });

  it("is a read model that a replay of the log reproduces exactly (cli verify)", async () => {
    await s.server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: s.server.dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/read-model tables rebuilt from \d+ events are equal/);
  }, 120_000);
});
