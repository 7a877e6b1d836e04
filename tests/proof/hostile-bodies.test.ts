import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { DEVICES } from "./mutations.ts";

/**
 * Hostile bodies against what ships (Deno, PGlite on disk): XML entity bombs and external entities,
 * gzip bombs, deep nesting, and a multi-gigabyte multipart body streamed lazily. Each must end in a
 * clear 4xx or an upload error, the server must keep answering, and its peak RSS (VmHWM) stays
 * bounded. FUZZ_LONG=1 streams 8 GiB instead of 2 GiB.
 */
const LONG = process.env.FUZZ_LONG === "1";
const STREAM_BYTES = (LONG ? 8 : 2) * 1024 ** 3;

let server: DenoServer;
let token: string;
let call: ReturnType<typeof api>;
let idlePeak = 0;
beforeAll(async () => {
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-hostile-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const athleteId = await createAthlete(setup, {
    firstname: "Hostile",
    lastname: "Input",
    email: "hostile@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Hostile",
    ownerId: athleteId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  token = await issueToken(setup, {
    athleteId,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  await setup.close();
  server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
  call = api(server.url);
  await call("GET", "/health");
  idlePeak = peakRssMiB();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});
// Each attack's peak RSS is its own: the high-water mark is reset before every test.
let overallPeak = 0;
beforeEach(() => {
  if (!server) return;
  overallPeak = Math.max(overallPeak, peakRssMiB());
  resetPeak();
});

/** Starts a new peak: the kernel resets VmHWM to the current RSS. */
function resetPeak(): void {
  writeFileSync(`/proc/${server.child.pid}/clear_refs`, "5");
}

/** Peak resident set size of the Deno server process since the last reset, in MiB. */
function peakRssMiB(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function upload(bytes: Uint8Array, dataType: string, fileName = `hostile.${dataType}`) {
  const form = new FormData();
  form.set("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), fileName);
  form.set("data_type", dataType);
  return call("POST", "/v3/uploads", { token, multipart: form });
}

/** The final status of an upload: refused at once (400/413) or processed to ready/error. */
async function outcome(bytes: Uint8Array, dataType: string) {
  const res = await upload(bytes, dataType);
  expect(res.status).toBeLessThan(500);
  if (res.status !== 201) {
    return {
      http: res.status,
      status: res.body?.status as string | undefined,
      error: (res.body?.error ?? res.body?.message) as string,
    };
  }
  for (let i = 0; i < 300; i++) {
    const poll = await call("GET", `/v3/uploads/${res.body.id}`, { token });
    expect(poll.status).toBe(200);
    if (poll.body.status !== UPLOAD_STATUS.processing) {
      return { http: 201, status: poll.body.status as string, error: poll.body.error as string };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("upload still being processed after 30 s");
}

const figures: string[] = [];

describe("hostile input: a multi-gigabyte streamed multipart body", () => {
  function lazyMultipart(total: number, boundary: string) {
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="data_type"\r\n\r\nfit\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.fit"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const chunk = new Uint8Array(256 * 1024).fill(0x2e);
    let sent = 0;
    let first = true;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (first) {
          first = false;
          controller.enqueue(head);
          return;
        }
        if (sent >= total) {
          controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
          controller.close();
          return;
        }
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    return { stream, sent: () => sent };
  }

  it(
    `${STREAM_BYTES / 1024 ** 3} GiB streamed without a length → 413, the server keeps answering, RSS bounded`,
    async () => {
      const boundary = "----proof" + Math.random().toString(36).slice(2);
      const body = lazyMultipart(STREAM_BYTES, boundary);
      let status = 0;
      let text = "";
      try {
        const res = await fetch(`${server.url}/v3/uploads`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
          body: body.stream,
          duplex: "half",
        } as RequestInit);
        status = res.status;
        text = await res.text();
      } catch (error) {
        // The server may close the connection after answering; the answer is what counts.
        throw new Error(`no answer after ${body.sent()} bytes: ${(error as Error).message}`);
      }
      expect(status).toBe(413);
      expect(JSON.parse(text).errors[0]).toMatchObject({ code: "too large" });
      await body.stream.cancel().catch(() => {});
      expect((await call("GET", "/health")).status).toBe(200);
      expect(server.child.exitCode).toBe(null);
      const peak = peakRssMiB();
      figures.push(
        `${STREAM_BYTES / 1024 ** 3} GiB chunked multipart (first, on a fresh server): 413 after ${
          (body.sent() / 1024 / 1024).toFixed(0)
        } MiB read by the client stream; peak RSS ${peak.toFixed(0)} MiB`,
      );
      // Bounded: the body limit (64 MiB) buffered at most a few times over, never the 2 GiB.
      expect(peak).toBeLessThan(1024);
    },
    300_000,
  );

  it("a declared Content-Length of 4 GiB → 413 before the body is read", async () => {
    const { request } = await import("node:http");
    const url = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: "/v3/uploads",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "multipart/form-data; boundary=x",
          "content-length": String(4 * 1024 ** 3),
        },
      }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.write("--x\r\n");
    });
    expect(status).toBe(413);
    expect((await call("GET", "/health")).status).toBe(200);
  });
});

describe("hostile input: XML", () => {
  const gpx = (doctype: string, body: string) =>
    new TextEncoder().encode(
      `<?xml version="1.0"?>\n${doctype}\n<gpx version="1.1" creator="x"><trk><trkseg>` +
        `<trkpt lat="51.5" lon="-0.1"><time>2026-05-01T08:00:00Z</time><name>${body}</name></trkpt>` +
        `<trkpt lat="51.6" lon="-0.1"><time>2026-05-01T08:00:10Z</time></trkpt></trkseg></trk></gpx>`,
    );

  it("billion laughs (GPX and TCX) → an upload error naming the DOCTYPE, memory bounded", async () => {
    const entities = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? "" : i - 1};`.repeat(10)}">`);
    const doctype = `<!DOCTYPE gpx [\n${entities.join("\n")}\n]>`;
    const result = await outcome(gpx(doctype, "&lol9;"), "gpx");
    expect(result.status).toBe(UPLOAD_STATUS.error);
    expect(result.error).toMatch(/DOCTYPE|entit/i);
    const tcx = new TextEncoder().encode(
      `<?xml version="1.0"?>\n${doctype.replace("gpx", "TrainingCenterDatabase")}\n` +
        `<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Biking">` +
        `<Id>2026-05-01T08:00:00Z</Id><Notes>&lol9;</Notes><Lap StartTime="2026-05-01T08:00:00Z"><Track><Trackpoint><Time>2026-05-01T08:00:00Z</Time>` +
        `</Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>`,
    );
    const tcxResult = await outcome(tcx, "tcx");
    expect(tcxResult.status).toBe(UPLOAD_STATUS.error);
    expect(tcxResult.error).toMatch(/DOCTYPE|entit/i);
    figures.push(`billion laughs: upload error; peak RSS ${peakRssMiB().toFixed(0)} MiB`);
  });

  it("external entities (file, http, parameter entities) are refused and never read", async () => {
    const attacks = [
      `<!DOCTYPE gpx [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`,
      `<!DOCTYPE gpx [<!ENTITY xxe SYSTEM "${server.url}/health">]>`,
      `<!DOCTYPE gpx [<!ENTITY % p SYSTEM "file:///etc/hostname"> %p;]>`,
    ];
    for (const doctype of attacks) {
      const result = await outcome(gpx(doctype, "&xxe;"), "gpx");
      expect(result.status).toBe(UPLOAD_STATUS.error);
      expect(result.error).toMatch(/DOCTYPE|entit/i);
      expect(result.error).not.toMatch(/root:/);
    }
    // Nothing from /etc/passwd became an activity.
    const list = await call("GET", "/v3/athlete/activities", { token, query: { per_page: 200 } });
    expect(list.text).not.toMatch(/root:x:0/);
  });

  it("deeply nested elements and a huge attribute → an error or an activity, never a crash", async () => {
    const deep = `${"<extensions>".repeat(100_000)}${"</extensions>".repeat(100_000)}`;
    const nested = await outcome(gpx("", `x</name>${deep}<name>y`), "gpx");
    expect([UPLOAD_STATUS.error, UPLOAD_STATUS.ready]).toContain(nested.status);
    const huge = await outcome(gpx("", "n".repeat(20 * 1024 * 1024)), "gpx");
    expect([UPLOAD_STATUS.error, UPLOAD_STATUS.ready]).toContain(huge.status);
    expect((await call("GET", "/health")).status).toBe(200);
    figures.push(
      `deep nesting (100,000 levels) and a 20 MiB element: ${nested.status} / ${huge.status}; peak RSS ${
        peakRssMiB().toFixed(0)
      } MiB`,
    );
  }, 120_000);
});

describe("hostile input: gzip bombs", () => {
  it("a .gz inflating to 2 GiB → 413, memory bounded", async () => {
    const member = gzipSync(new Uint8Array(64 * 1024 * 1024), { level: 9 });
    const members = 32; // 32 × 64 MiB = 2 GiB inflated
    const bomb = new Uint8Array(member.length * members);
    for (let i = 0; i < members; i++) bomb.set(member, i * member.length);
    for (const dataType of ["fit.gz", "gpx.gz", "tcx.gz"]) {
      const res = await upload(bomb, dataType);
      expect(res.status).toBe(413);
      expect(res.body.errors[0]).toMatchObject({ resource: "Upload", field: "file" });
    }
    // A real device file inside the bomb's first member does not help either.
    const fit = readFileSync(join(DEVICES, "fit/garmin-edge1000-cycling-short-3formats.fit"));
    expect((await upload(Buffer.concat([gzipSync(fit), member, member]), "fit.gz")).status).toBe(413);
    expect((await call("GET", "/health")).status).toBe(200);
    figures.push(
      `gzip bomb (${(bomb.length / 1024 / 1024).toFixed(1)} MiB → 2 GiB): 413; peak RSS ${peakRssMiB().toFixed(0)} MiB`,
    );
  }, 120_000);
});

describe("hostile input: figures", () => {
  it("reports the figures", () => {
    expect(figures.length).toBeGreaterThanOrEqual(3);
    console.log(
      `hostile bodies (Deno; idle server peak RSS ${idlePeak.toFixed(0)} MiB):\n  ${
        figures.join("\n  ")
      }\n  server peak RSS over the whole file: ${Math.max(overallPeak, peakRssMiB()).toFixed(0)} MiB`,
    );
  });
});
