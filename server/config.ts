import { resolve } from "node:path";
import process from "node:process";
import { defaultDeriveWorkers } from "./uploads/derive-pool.ts";

/** Everything the server reads from its environment, with the defaults the README lists. */
export interface Config {
  port: number;
  /** Where embedded PGlite keeps the platform (and the admin secret). */
  dataDir: string;
  /** A PostgreSQL URL; when set, PGlite is not used. */
  databaseUrl?: string;
  /** Public base URL used in links (web_url, tile_path, activity links). */
  publicUrl: string;
  rateLimitShort: number;
  rateLimitLong: number;
  /** Largest request body accepted (413 above). */
  maxBodyBytes: number;
  /** Largest upload file after decompression. */
  maxUploadBytes: number;
  /** Whether to create the demo platform on first start. */
  seedDemo: boolean;
  /** Run background jobs (upload processing, heatmap builds, webhook deliveries) in this process. */
  runJobs: boolean;
  /** Quiet start-up banner (tests). */
  quiet: boolean;
  /** Uploads decoded and derived at once, each in its own worker thread (DERIVE_WORKERS; 0 = on the event loop). */
  deriveWorkers?: number;
  /** Webhook delivery attempts per event, first included (WEBHOOK_ATTEMPTS, default 3). */
  webhookAttempts?: number;
  /** Webhook retry back-off base in ms, doubled per attempt (WEBHOOK_RETRY_MS, default 10000). */
  webhookRetryMs?: number;
}

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return Math.floor(n);
}

export function configFromEnv(overrides: Partial<Config> = {}): Config {
  const port = overrides.port ?? intEnv("PORT", 8080);
  return {
    port,
    dataDir: resolve(process.env.DATA_DIR ?? "./data"),
    databaseUrl: process.env.DATABASE_URL || undefined,
    publicUrl: process.env.PUBLIC_URL ?? `http://localhost:${port}`,
    rateLimitShort: intEnv("RATE_LIMIT_SHORT", 600),
    rateLimitLong: intEnv("RATE_LIMIT_LONG", 30000),
    maxBodyBytes: intEnv("MAX_BODY_BYTES", 64 * 1024 * 1024),
    maxUploadBytes: intEnv("MAX_UPLOAD_BYTES", 64 * 1024 * 1024),
    seedDemo: process.env.SEED_DEMO !== "0",
    runJobs: process.env.RUN_JOBS !== "0",
    quiet: process.env.QUIET === "1",
    deriveWorkers: intEnv("DERIVE_WORKERS", defaultDeriveWorkers()),
    webhookAttempts: Math.max(1, intEnv("WEBHOOK_ATTEMPTS", 3)),
    webhookRetryMs: intEnv("WEBHOOK_RETRY_MS", 10_000),
    ...overrides,
  };
}
