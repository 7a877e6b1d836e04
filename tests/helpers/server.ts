import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, configFromEnv } from "../../server/config.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete, type NewAthlete } from "../../server/athletes/commands.ts";
import type { Permission } from "../../server/http/auth.ts";
import { type RunningServer, startServer } from "../../server/start.ts";
import { type Api, api, type UploadFile, uploadUntilReady as uploadOverHttp } from "./http.ts";

export interface TestServer extends RunningServer {
  dataDir: string;
  api: Api;
  /** Creates an athlete with a token for a fresh application (or the given one). */
  athlete(options?: Partial<NewAthlete> & { permissions?: Permission[]; applicationId?: number }): Promise<TestAthlete>;
  /** Creates an application owned by a new athlete. */
  application(
    options?: { internal?: boolean; kudos?: boolean; challenges?: boolean },
  ): Promise<{ client_id: number; client_secret: string; access_token: string; ownerId: number }>;
  token(athleteId: number, applicationId: number, permissions?: Permission[]): Promise<string>;
}

export interface TestAthlete {
  id: number;
  email: string;
  token: string;
  applicationId: number;
}

let counter = 0;

/**
 * The real server in this (Node) process on a real port: PGlite in a temp directory, or the
 * PostgreSQL database given. Tests talk HTTP to it.
 */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-test-"));
  // passwordCost "test": athletes are created by the dozen here; the OWASP cost is proven in tests/proof/sign-in.test.ts.
  const config = configFromEnv({
    port: 0,
    dataDir,
    seedDemo: false,
    quiet: true,
    databaseUrl: undefined,
    passwordCost: "test",
    ...overrides,
  });
  const server = await startServer(config);
  let defaultApp: number | undefined;
  const self: TestServer = {
    ...server,
    dataDir,
    api: api(server.url),
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    async application(options = {}) {
      const n = ++counter;
      const ownerId = await createAthlete(server.platform, {
        firstname: `Owner${n}`,
        lastname: "Dev",
        email: `owner${n}-${Date.now()}@example.com`,
        password: "password123",
      });
      const created = await createApplication(server.platform, {
        name: `App ${n}`,
        ownerId,
        callbackDomain: "localhost",
        internal: options.internal ?? true,
        kudosEnabled: options.kudos ?? true,
        challengesEnabled: options.challenges ?? true,
      });
      return { ...created, ownerId };
    },
    async token(athleteId, applicationId, permissions = ["read", "write", "view_private"]) {
      return issueToken(server.platform, { athleteId, applicationId, permissions });
    },
    async athlete(options = {}) {
      const n = ++counter;
      const email = options.email ?? `athlete${n}-${Date.now()}@example.com`;
      const id = await createAthlete(server.platform, {
        firstname: options.firstname ?? `Athlete${n}`,
        lastname: options.lastname ?? "Test",
        email,
        password: options.password ?? "password123",
        sex: options.sex ?? "M",
        premium: options.premium ?? false,
        city: options.city,
        state: options.state,
        country: options.country,
        birthdate: options.birthdate ?? "1990-01-01",
        weight: options.weight ?? 70,
      });
      const applicationId = options.applicationId ?? (defaultApp ??= (await self.application()).client_id);
      const token = await self.token(id, applicationId, options.permissions);
      return { id, email, token, applicationId };
    },
  };
  return self;
}

/** Uploads a device file over HTTP and polls the upload until its activity is ready; the activity id. */
export function uploadUntilReady(server: TestServer, token: string, file: UploadFile): Promise<number> {
  return uploadOverHttp(server.api, token, file, {}, () => server.platform.jobs.kick());
}
