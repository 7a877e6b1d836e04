import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import type { Permission } from "../../server/http/auth.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { type Api, api } from "../helpers/http.ts";
import { deviceFile } from "../helpers/fixtures.ts";

export interface Person {
  id: number;
  token: string;
  /** A token with read only (no view_private, no write). */
  readToken: string;
}

export interface DropinServer {
  server: DenoServer;
  call: Api;
  people: Record<string, Person>;
  /** The application the tokens were issued to (its credentials, for the OAuth endpoints). */
  application: { clientId: number; clientSecret: string };
  close(): Promise<void>;
}

/**
 * The server as `npm start` runs it (Deno, a real port, PGlite on disk), with athletes and tokens
 * created beforehand in its data directory (there is no public sign-up over the API).
 */
export async function startDropinServer(
  names: string[],
  options: { premium?: boolean; env?: Record<string, string> } = {},
): Promise<DropinServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-dropin-"));
  const setup = await openPlatform(
    configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true, passwordCost: "test" }),
  );
  const ownerId = await createAthlete(setup, {
    firstname: "App",
    lastname: "Owner",
    email: "owner@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Drop-in",
    ownerId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  const people: Record<string, Person> = {};
  for (const name of names) {
    const id = await createAthlete(setup, {
      firstname: name,
      lastname: "Tester",
      email: `${name.toLowerCase()}@example.com`,
      password: "password123",
      sex: "F",
      weight: 61.5,
      birthdate: "1988-05-06",
      premium: options.premium ?? false,
    });
    const all: Permission[] = ["read", "write", "view_private"];
    people[name] = {
      id,
      token: await issueToken(setup, { athleteId: id, applicationId: app.client_id, permissions: all }),
      readToken: await issueToken(setup, { athleteId: id, applicationId: app.client_id, permissions: ["read"] }),
    };
  }
  await setup.close();
  const server = await startDenoServer({
    dataDir,
    env: { SEED_DEMO: "0", RATE_LIMIT_SHORT: "1000000", RATE_LIMIT_LONG: "1000000", ...options.env },
  });
  return {
    server,
    call: api(server.url),
    people,
    application: { clientId: app.client_id, clientSecret: app.client_secret },
    close: async () => void (await server.stop()),
  };
}

/** Uploads a device file of the project's corpus (or given bytes) over HTTP and waits for its activity id. */
export async function upload(
  call: Api,
  token: string,
  file: string | { bytes: Uint8Array<ArrayBuffer>; name: string },
  fields: Record<string, string> = {},
): Promise<number> {
  const form = new FormData();
  const name = typeof file === "string" ? file.split("/").pop()! : file.name;
  const bytes = typeof file === "string" ? readFileSync(deviceFile(file)) : file.bytes;
  form.set("file", new Blob([bytes]), name);
  form.set("data_type", name.endsWith(".fit") ? "fit" : name.endsWith(".tcx") ? "tcx" : "gpx");
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await call("POST", "/v3/uploads", { token, multipart: form });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
  for (let i = 0; i < 1200; i++) {
    const status = await call("GET", `/v3/uploads/${res.body.id}`, { token });
    if (status.body.error) throw new Error(`upload failed: ${status.body.error}`);
    if (status.body.activity_id) return status.body.activity_id as number;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("upload did not finish");
}
