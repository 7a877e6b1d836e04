import { resolve } from "node:path";
import process from "node:process";
import { defaultDeriveWorkers } from "./uploads/derive-pool.ts";
import { parseRange } from "./webhooks/address-policy.ts";

/** Everything the server reads from its environment, with the defaults `npm start -- --help` lists. */
export interface Config {
  port: number;
  /** Where embedded PGlite keeps the platform (and the admin secret). */
  dataDir: string;
  /** A PostgreSQL URL; when set, PGlite is not used. */
  databaseUrl?: string;
  /** Public base URL used in links (web_url, tile_path, activity links). */
  publicUrl: string;
  /**
   * A base URL of its own for the API without /v3 (PUBLIC_API_URL, e.g. https://api.example.org):
   * requests whose Host is its host are answered as /v3 + path (/athlete → /v3/athlete).
   */
  publicApiUrl?: string;
  rateLimitShort: number;
  rateLimitLong: number;
  /** Per-athlete limits of this server's own applications (the web pages); default the application limits above. */
  athleteRateLimitShort?: number;
  athleteRateLimitLong?: number;
  /** Dynamic client registrations (POST /oauth/register) per client address: per 15 minutes and per day. */
  registrationLimitShort?: number;
  registrationLimitLong?: number;
  /** Largest request body accepted (413 above). */
  maxBodyBytes: number;
  /** Largest upload file after decompression. */
  maxUploadBytes: number;
  /** Largest export archive posted to POST /v3/athlete/imports or /settings/import (streamed to disk; MAX_BODY_BYTES does not apply). */
  maxImportBytes?: number;
  /** How often a running archive import checkpoints (IMPORT_CHECKPOINT_MS): the most work a crash makes it redo. */
  importCheckpointMs?: number;
  /** Embedded PGlite's buffer cache (PGLITE_SHARED_BUFFERS, e.g. "32MB"; default PGlite's own, 128MB). */
  pgliteSharedBuffers?: string;
  /** Whether to create the demo platform on first start. */
  seedDemo: boolean;
  /** Run background jobs (upload processing, heatmap builds, webhook deliveries) in this process. */
  runJobs: boolean;
  /** Quiet start-up banner and no request log (tests). */
  quiet: boolean;
  /** Uploads decoded and derived at once, each in its own worker thread (DERIVE_WORKERS; 0 = on the event loop). */
  deriveWorkers?: number;
  /** Webhook delivery attempts per event, first included (WEBHOOK_ATTEMPTS, default 3). */
  webhookAttempts?: number;
  /** Webhook retry back-off base in ms, doubled per attempt (WEBHOOK_RETRY_MS, default 10000). */
  webhookRetryMs?: number;
  /**
   * Webhook callbacks may resolve to loopback, private, link-local, unique-local or CGNAT addresses
   * (WEBHOOKS_ALLOW_PRIVATE, default off: such callbacks are refused at subscription, delivery and
   * every redirect); a list of ranges ("192.168.1.0/24,fd00::/8") allows only those.
   */
  webhooksAllowPrivate?: boolean | readonly string[];
  /** Request log: one line per request as text, as JSON, or none (LOG_FORMAT). */
  logFormat?: LogFormat;
  /** Log event-loop stalls longer than this many ms, with the main thread's CPU and run-queue wait (LOG_LOOP_STALLS_MS; 0 = off). */
  loopStallMs?: number;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`; when unset, only loopback clients get it. */
  metricsToken?: string;
  /**
   * Password hashing cost: "owasp" (default, scrypt N=2^17 r=8 p=1). "test" (N=2^10) exists only for
   * test servers that create many athletes; it can be set only in code (a test's overrides), never
   * from the environment.
   */
  passwordCost?: "owasp" | "test";
}

export type LogFormat = "text" | "json" | "off";

/** A setting the server reads from its environment: listed by `npm start -- --help` and docs/operators.md. */
export interface Setting {
  name: string;
  default: string;
  description: string;
}

export const SETTINGS: readonly Setting[] = [
  { name: "PORT", default: "8080", description: "TCP port of the API and web pages (0 = any free port)" },
  {
    name: "DATA_DIR",
    default: "./data",
    description: "directory of the embedded database (PGlite) and the admin handle",
  },
  {
    name: "DATABASE_URL",
    default: "(unset)",
    description: "postgres://… to use PostgreSQL instead of the embedded database",
  },
  {
    name: "PUBLIC_URL",
    default: "http://localhost:$PORT",
    description: "base URL clients reach the server at (links, OAuth redirects)",
  },
  {
    name: "PUBLIC_API_URL",
    default: "(unset)",
    description:
      "a host of its own for the API without the /v3 prefix, as Strava's https://api-v3.strava.com: requests to this URL's host map /athlete to /v3/athlete",
  },
  { name: "RATE_LIMIT_SHORT", default: "600", description: "requests per application per 15 minutes" },
  { name: "RATE_LIMIT_LONG", default: "30000", description: "requests per application per day (UTC)" },
  {
    name: "ATHLETE_RATE_LIMIT_SHORT",
    default: "$RATE_LIMIT_SHORT",
    description: "requests per athlete per 15 minutes through this server's own applications (the web pages)",
  },
  {
    name: "ATHLETE_RATE_LIMIT_LONG",
    default: "$RATE_LIMIT_LONG",
    description: "requests per athlete per day (UTC) through this server's own applications",
  },
  {
    name: "REGISTRATION_LIMIT_SHORT",
    default: "20",
    description:
      "OAuth client registrations (POST /oauth/register, AI assistants connecting) per client address per 15 minutes; ten times as many from all addresses",
  },
  {
    name: "REGISTRATION_LIMIT_LONG",
    default: "100",
    description: "OAuth client registrations per client address per day (UTC); ten times as many from all addresses",
  },
  { name: "MAX_BODY_BYTES", default: "67108864", description: "largest request body (413 above)" },
  { name: "MAX_UPLOAD_BYTES", default: "67108864", description: "largest upload file after decompression" },
  {
    name: "MAX_IMPORT_BYTES",
    default: "34359738368",
    description: "largest export archive posted for import (streamed to disk; 413 above)",
  },
  {
    name: "IMPORT_CHECKPOINT_MS",
    default: "2000",
    description: "how often a running archive import records its progress (what a crash makes it redo)",
  },
  {
    name: "PGLITE_SHARED_BUFFERS",
    default: "128MB",
    description: "embedded database buffer cache (e.g. 32MB; `import-archive` uses 32MB)",
  },
  { name: "SEED_DEMO", default: "1", description: "0 = do not create the demo platform on first start" },
  {
    name: "DERIVE_WORKERS",
    default: "cores - 1 (at least 1)",
    description: "uploads decoded and derived at once, each in a worker thread (0 = on the event loop)",
  },
  {
    name: "RUN_JOBS",
    default: "1",
    description: "0 = run no background jobs in this process (uploads, heatmaps, webhooks)",
  },
  { name: "WEBHOOK_ATTEMPTS", default: "3", description: "webhook delivery attempts per event, the first included" },
  { name: "WEBHOOK_RETRY_MS", default: "10000", description: "webhook retry back-off base in ms, doubled per attempt" },
  {
    name: "WEBHOOKS_ALLOW_PRIVATE",
    default: "0",
    description:
      "1 = webhook callbacks may point at loopback, private, link-local and CGNAT addresses (a home lab); a comma-separated list of ranges (192.168.1.0/24,fd00::/8) = only those besides public addresses; 0 = public addresses only",
  },
  { name: "LOG_FORMAT", default: "text", description: "request log: text, json (one JSON object per line) or off" },
  {
    name: "LOG_LOOP_STALLS_MS",
    default: "0",
    description:
      "log each event-loop stall longer than this (ms) on stderr, split into CPU and waiting for a core (0 = off)",
  },
  {
    name: "METRICS_TOKEN",
    default: "(unset)",
    description: "bearer token for GET /metrics; unset = loopback clients only",
  },
  { name: "QUIET", default: "0", description: "1 = no start-up banner and no request log" },
  { name: "HEATMAP_BASEMAP_URL", default: "(unset)", description: "base-map tile URL template for the heatmap viewer" },
  { name: "HEATMAP_BASEMAP_ATTRIBUTION", default: "(unset)", description: "attribution shown under that base map" },
  {
    name: "ELEVATION_TILES_DIR",
    default: "(unset)",
    description:
      "folder of SRTM .hgt tiles: non-barometric recordings take the terrain's altitude (`npm run cli -- elevation fetch` fills it)",
  },
];

/** A setting with a value the server cannot use: reported as one line, exit code 2. */
export class ConfigError extends Error {}

function env(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === "" ? undefined : raw;
}

function intEnv(name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: expected a whole number from 0 to ${max}`);
  }
  return Number(raw);
}

/** A PostgreSQL memory size ("32MB", "1GB", "16384kB"), or undefined. */
function sizeEnv(name: string): string | undefined {
  const raw = env(name);
  if (raw === undefined) return undefined;
  if (!/^\d+(kB|MB|GB)$/.test(raw.trim())) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: expected a size such as 32MB`);
  }
  return raw.trim();
}

function flagEnv(name: string, fallback: boolean): boolean {
  const raw = env(name);
  if (raw === undefined) return fallback;
  if (raw === "1" || raw === "true") return true;
  if (raw === "0" || raw === "false") return false;
  throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: expected 1 or 0`);
}

/** 1/0 (true/false), or a comma-separated list of address ranges (a.b.c.d/n, x::/n, or single addresses). */
function allowPrivateEnv(name: string, raw: string | undefined): boolean | string[] {
  if (raw === undefined || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  const ranges = raw.split(",").map((r) => r.trim()).filter((r) => r !== "");
  const bad = ranges.find((r) => parseRange(r) === null);
  if (ranges.length === 0 || bad !== undefined) {
    throw new ConfigError(
      `${name}=${
        JSON.stringify(raw)
      } is not valid: expected 1, 0 or a comma-separated list of address ranges such as 192.168.1.0/24`,
    );
  }
  return ranges;
}

function urlEnv(name: string, protocols: string[]): string | undefined {
  const raw = env(name);
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch { /* reported below */ }
  if (!url || !protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} is not valid: expected a ${protocols.map((p) => `${p}//…`).join(" or ")} URL`);
  }
  return raw;
}

function logFormatEnv(quiet: boolean): LogFormat {
  const raw = env("LOG_FORMAT");
  if (raw === undefined) return quiet ? "off" : "text";
  if (raw === "text" || raw === "json" || raw === "off") return raw;
  throw new ConfigError(`LOG_FORMAT=${JSON.stringify(raw)} is not valid: expected text, json or off`);
}

/** Reads the environment; throws ConfigError (one line naming the setting) for a value it cannot use. */
export function configFromEnv(overrides: Partial<Config> = {}): Config {
  const port = overrides.port ?? intEnv("PORT", 8080, 65535);
  const quiet = overrides.quiet ?? flagEnv("QUIET", false);
  const publicApiUrl = urlEnv("PUBLIC_API_URL", ["http:", "https:"]);
  const publicUrl = urlEnv("PUBLIC_URL", ["http:", "https:"]) ?? `http://localhost:${port}`;
  // The API host answers every path as the API: it cannot also be the host of the pages.
  if (publicApiUrl && new URL(publicApiUrl).hostname === new URL(publicUrl).hostname) {
    throw new ConfigError(
      "PUBLIC_API_URL is not valid: it must name another host than PUBLIC_URL (the API host answers every path as the API)",
    );
  }
  return {
    port,
    dataDir: resolve(env("DATA_DIR") ?? "./data"),
    databaseUrl: urlEnv("DATABASE_URL", ["postgres:", "postgresql:"]),
    publicUrl,
    publicApiUrl,
    rateLimitShort: intEnv("RATE_LIMIT_SHORT", 600),
    rateLimitLong: intEnv("RATE_LIMIT_LONG", 30000),
    athleteRateLimitShort: env("ATHLETE_RATE_LIMIT_SHORT") === undefined
      ? undefined
      : intEnv("ATHLETE_RATE_LIMIT_SHORT", 0),
    athleteRateLimitLong: env("ATHLETE_RATE_LIMIT_LONG") === undefined
      ? undefined
      : intEnv("ATHLETE_RATE_LIMIT_LONG", 0),
    registrationLimitShort: intEnv("REGISTRATION_LIMIT_SHORT", 20),
    registrationLimitLong: intEnv("REGISTRATION_LIMIT_LONG", 100),
    maxBodyBytes: intEnv("MAX_BODY_BYTES", 64 * 1024 * 1024),
    maxUploadBytes: intEnv("MAX_UPLOAD_BYTES", 64 * 1024 * 1024),
    maxImportBytes: intEnv("MAX_IMPORT_BYTES", 32 * 1024 ** 3),
    importCheckpointMs: Math.max(50, intEnv("IMPORT_CHECKPOINT_MS", 2_000)),
    pgliteSharedBuffers: sizeEnv("PGLITE_SHARED_BUFFERS"),
    seedDemo: flagEnv("SEED_DEMO", true),
    runJobs: flagEnv("RUN_JOBS", true),
    quiet,
    deriveWorkers: intEnv("DERIVE_WORKERS", defaultDeriveWorkers(), 64),
    webhookAttempts: Math.max(1, intEnv("WEBHOOK_ATTEMPTS", 3)),
    webhookRetryMs: intEnv("WEBHOOK_RETRY_MS", 10_000),
    webhooksAllowPrivate: allowPrivateEnv("WEBHOOKS_ALLOW_PRIVATE", env("WEBHOOKS_ALLOW_PRIVATE")),
    logFormat: logFormatEnv(quiet),
    loopStallMs: intEnv("LOG_LOOP_STALLS_MS", 0, 60_000),
    metricsToken: env("METRICS_TOKEN"),
    ...overrides,
  };
}

/** The text of `npm start -- --help`: every setting with its default. */
export function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length)) + 2;
  return [
    "Usage: npm start [-- --help]",
    "",
    "Starts the fitness platform server. It is configured by environment variables:",
    "",
    ...SETTINGS.map((s) => `  ${s.name.padEnd(width)}${s.description} (default: ${s.default})`),
    "",
    "Health: GET /health (liveness), GET /ready (readiness), GET /metrics (Prometheus).",
  ].join("\n");
}
