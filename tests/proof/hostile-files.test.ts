import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { ApiError } from "../../server/http/errors.ts";
import { processUpload } from "../../server/uploads/job.ts";
import { findUpload } from "../../server/uploads/status.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { manyAthletes, type RaceAthlete } from "./fast-athletes.ts";
import { deviceFiles, type Mutant, mutants } from "./mutations.ts";

/**
 * ≥ 1,000 mutated device files (bit flips, truncation, wrong FIT length fields, random byte runs,
 * duplicated chunks, hostile numbers in XML, corrupt gzip) through the real upload pipeline: most
 * in-process (submitUpload, then the upload job's processUpload, as the job runner calls it), a
 * sample over HTTP. Every one must end "ready" or "error" — never a 5xx, a throw, or a stuck upload.
 * FUZZ_LONG=1 (npm run fuzz) runs 10× as many, from every fixture including the large ones.
 */
const LONG = process.env.FUZZ_LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const IN_PROCESS = LONG ? 10_000 : 1_000;
const OVER_HTTP = LONG ? 500 : 100;

let server: TestServer;
let athletes: RaceAthlete[];
beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 100_000_000, rateLimitLong: 100_000_000 });
  const app = await server.application();
  athletes = await manyAthletes(server.platform, 40, app.client_id, "fuzz", ["read", "write", "view_private"]);
});
afterAll(() => server.close());

const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);
const describeMutant = (m: Mutant, i: number) => `#${i} ${m.label} of ${m.source} as ${m.dataType} (seed ${SEED})`;

describe("hostile input: mutated device files", () => {
  it(`${IN_PROCESS} mutants through submitUpload + the upload job: each ends ready or error`, async () => {
    const files = deviceFiles(LONG ? Infinity : 400_000);
    const all = mutants(files, IN_PROCESS, SEED);
    expect(all.length).toBeGreaterThanOrEqual(1000);
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const i = next++;
        const m = all[i];
        await new Promise((r) => setImmediate(r)); // let the test runner's messages through between files
        const athlete = athletes[i % athletes.length];
        let uploadId: number;
        try {
          const status = await submitUpload(server.platform, {
            athleteId: athlete.id,
            fileName: `mutant-${i}.${m.dataType}`,
            bytes: m.bytes,
            dataType: m.dataType,
            activityType: null,
            name: null,
            description: null,
            private: false,
            trainer: false,
            commute: false,
            externalId: null,
          }, systemActor("test", athlete.id));
          uploadId = status.id;
        } catch (error) {
          // Refused at submission: only the documented 400 (with an upload status) or 413.
          expect(error, describeMutant(m, i)).toBeInstanceOf(ApiError);
          expect([400, 413], describeMutant(m, i)).toContain((error as ApiError).status);
          count(`refused ${(error as ApiError).status}`);
          continue;
        }
        // The job must not throw (a throw leaves the upload processing and retried forever).
        await expect(processUpload(server.platform, uploadId), describeMutant(m, i)).resolves.toBeUndefined();
        const row = await findUpload(server.platform.db, uploadId);
        expect([UPLOAD_STATUS.ready, UPLOAD_STATUS.error], describeMutant(m, i)).toContain(row!.status);
        count(row!.status === UPLOAD_STATUS.ready ? "ready" : "error");
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    const total = [...tally.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(IN_PROCESS);
    console.log(
      `hostile files (in-process): ${IN_PROCESS} mutants → ${
        JSON.stringify(Object.fromEntries(tally))
      }; stuck 0, throws 0`,
    );
  }, LONG ? 3_600_000 : 240_000);

  it(`${OVER_HTTP} mutants over HTTP: never a 5xx; every accepted upload ends ready or error`, async () => {
    const files = deviceFiles(LONG ? Infinity : 400_000);
    const sample = mutants(files, OVER_HTTP, SEED + 1);
    const statuses = new Map<number, number>();
    const accepted: { id: number; athlete: RaceAthlete; label: string }[] = [];
    for (const [i, m] of sample.entries()) {
      const athlete = athletes[i % athletes.length];
      const form = new FormData();
      form.set("file", new Blob([m.bytes as Uint8Array<ArrayBuffer>]), `http-mutant-${i}.${m.dataType}`);
      form.set("data_type", m.dataType);
      const res = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: form });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([201, 400, 413], describeMutant(m, i)).toContain(res.status);
      if (res.status === 201) accepted.push({ id: res.body.id, athlete, label: describeMutant(m, i) });
      else expect(res.body.error ?? res.body.message, describeMutant(m, i)).toBeTruthy();
    }
    // Every accepted upload reaches a final status through the job runner.
    const pending = new Map(accepted.map((a) => [a.id, a]));
    for (let round = 0; round < 900 && pending.size > 0; round++) {
      for (const [id, a] of pending) {
        const res = await server.api("GET", `/v3/uploads/${id}`, { token: a.athlete.token });
        expect(res.status, a.label).toBe(200);
        if (res.body.status !== UPLOAD_STATUS.processing) {
          expect([UPLOAD_STATUS.ready, UPLOAD_STATUS.error], a.label).toContain(res.body.status);
          pending.delete(id);
        }
      }
      if (pending.size) await new Promise((r) => setTimeout(r, 200));
    }
    expect([...pending.values()].map((a) => a.label)).toEqual([]);
    console.log(
      `hostile files (HTTP): ${OVER_HTTP} mutants → statuses ${
        JSON.stringify(Object.fromEntries(statuses))
      }; 5xx 0; stuck 0`,
    );
  }, LONG ? 3_600_000 : 180_000);

  it("leaves no upload of the run still being processed, and the server still answers", async () => {
    const [row] = await server.platform.db.query<{ n: number }>(
      "select count(*)::int as n from uploads where status = $1",
      [UPLOAD_STATUS.processing],
    );
    expect(row.n).toBe(0);
    const me = await server.api("GET", "/v3/athlete", { token: athletes[0].token });
    expect(me.status).toBe(200);
  });
});
