import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Decoder, Stream } from "@garmin/fitsdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { apiTypes } from "./client/generate.ts";
import { type DropinServer, startDropinServer } from "./deno-server.ts";

/**
 * Issue #19, "Done when": a client generated from our document by a standard generator from npm
 * (openapi-typescript for the types, openapi-fetch for the calls) compiles under `tsc --strict` and
 * runs a round trip over HTTP against the server as `npm start` runs it: athlete, upload of a real
 * FIT, polling the upload, activity, streams, stats — with every response typed (not never/unknown).
 * The same client against the document stripped of its response schemas does not compile.
 */
const CLIENT = join(import.meta.dirname!, "client");
const GENERATED = join(CLIENT, ".generated");
const BARE = join(CLIENT, ".generated-bare");
const TSC = join(import.meta.dirname!, "..", "..", "node_modules", "typescript", "bin", "tsc");
const FIT = "fit/garmin-edge500-cycling-hr-cad-pauses.fit";
const run = promisify(execFile);

let s: DropinServer;
// deno-lint-ignore no-explicit-any
let doc: any;

beforeAll(async () => {
  s = await startDropinServer(["Ann"]);
  const res = await fetch(new URL("/v3/openapi.json", s.server.url));
  expect(res.status).toBe(200);
  doc = await res.json();
}, 600_000);
afterAll(async () => {
  await s?.close();
  rmSync(GENERATED, { recursive: true, force: true });
  rmSync(BARE, { recursive: true, force: true });
});

/** Types generated from `document` and the client source, side by side in `dir`. */
async function generate(document: unknown, dir: string): Promise<string> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const types = await apiTypes(document);
  writeFileSync(join(dir, "api.d.ts"), types);
  copyFileSync(join(CLIENT, "round-trip.ts"), join(dir, "round-trip.ts"));
  return types;
}

/** tsc --strict --noEmit on the client: exit code and diagnostics. */
async function compile(dir: string): Promise<{ code: number; output: string }> {
  const args = [
    TSC,
    "--noEmit",
    "--strict",
    "--target",
    "es2022",
    "--lib",
    "es2022,dom",
    "--module",
    "esnext",
    "--moduleResolution",
    "bundler",
    "--allowImportingTsExtensions",
    "--types",
    "node",
    "--exactOptionalPropertyTypes",
    "false",
    join(dir, "round-trip.ts"),
  ];
  try {
    const { stdout } = await run(process.execPath, args, { cwd: join(import.meta.dirname!, "..", "..") });
    return { code: 0, output: stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, output: `${err.stdout}${err.stderr}` };
  }
}

/** The ride's own totals, read by Garmin's FIT SDK (not our decoder). */
function deviceTotals(bytes: Uint8Array) {
  const { messages } = new Decoder(Stream.fromByteArray(Array.from(bytes))).read();
  const session = messages.sessionMesgs![0];
  const hr = messages.recordMesgs!.map((r: { heartRate?: number }) => r.heartRate).filter((v: unknown): v is number =>
    typeof v === "number"
  );
  return {
    distance: session.totalDistance as number,
    maxHeartRate: Math.max(...hr),
    records: messages.recordMesgs!.length as number,
  };
}

describe("a client generated from /v3/openapi.json", () => {
  it("compiles under tsc --strict with every response typed, and not without the response schemas", async () => {
    const types = await generate(doc, GENERATED);
    expect(types).toContain('"application/json": components["schemas"]["DetailedAthlete"]');
    const typed = await compile(GENERATED);
    expect(typed.output).toBe("");
    expect(typed.code).toBe(0);

    // The control: the same document without response schemas (as it was) gives never/unknown answers.
    const bare = structuredClone(doc);
    for (
      const item of Object.values(bare.paths) as Record<string, { responses: Record<string, { content?: unknown }> }>[]
    ) {
      for (const op of Object.values(item)) for (const response of Object.values(op.responses)) delete response.content;
    }
    await generate(bare, BARE);
    const untyped = await compile(BARE);
    expect(untyped.code).not.toBe(0);
    expect(untyped.output).toMatch(/"is never"|"is unknown"/);
  }, 240_000);

  it("runs the round trip over HTTP: athlete, upload a FIT, poll, activity, streams, stats", async () => {
    await generate(doc, GENERATED);
    const bytes = new Uint8Array(readFileSync(deviceFile(FIT)));
    const { roundTrip } = await import(/* @vite-ignore */ join(GENERATED, "round-trip.ts"));
    const result = await roundTrip(s.server.url.replace(/\/$/, ""), s.people.Ann.token, { bytes, name: "ride.fit" });
    const device = deviceTotals(bytes);

    expect(result.athlete).toMatchObject({ id: s.people.Ann.id, firstname: "Ann", resource_state: 3 });
    expect(result.upload).toMatchObject({
      status: "Your activity is still being processed.",
      activity_id: null,
      error: null,
    });
    expect(result.upload.id_str).toBe(String(result.upload.id));
    expect(result.ready).toMatchObject({ id: result.upload.id, status: "Your activity is ready.", error: null });
    expect(result.activity).toMatchObject({
      id: result.ready.activity_id,
      name: "Generated client ride",
      resource_state: 3,
      athlete: { id: s.people.Ann.id },
    });
    // The device's own totals, compared with what the typed client read.
    expect(Math.abs(result.activity.distance - device.distance) / device.distance).toBeLessThan(0.01);
    expect(result.activity.max_heartrate).toBe(device.maxHeartRate);
    expect(Math.max(...result.heartrate)).toBe(device.maxHeartRate);
    expect(result.latlng.length).toBeGreaterThan(device.records / 2);
    expect(result.stats.all_ride_totals.count).toBe(1);
    expect(result.stats.all_ride_totals.distance).toBeCloseTo(result.activity.distance, 0);
    console.log(
      `generated client: upload polled ${result.polls}×; activity ${result.activity.id} ${result.activity.distance} m ` +
        `(device ${device.distance} m), max HR ${result.activity.max_heartrate} (device ${device.maxHeartRate}), ${result.latlng.length} points`,
    );
  }, 240_000);
});
