import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { lastPosition } from "../../events/log-queries.ts";
import { allProjections } from "../../projections/index.ts";
import { unappliedEvents } from "../../projections/queries/projection-lag.ts";
import { uploadCountsByStatus } from "../../projections/uploads/queries.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import type { Platform } from "../platform.ts";
import type { RequestRecord } from "./request-log.ts";

/** Upload status sentences as short label values. */
const UPLOAD_STATE: Record<string, string> = Object.fromEntries(
  Object.entries(UPLOAD_STATUS).map(([state, sentence]) => [sentence, state]),
);

const HANDLED_TYPES = [...new Set(allProjections.flatMap((p) => p.handles))];

/**
 * Label values come from closed sets only: a label value a client could choose (a made-up HTTP
 * method, a random path, an unusual status) would be a new series for the life of the process.
 * Whatever does not belong to the set is counted as "other".
 */
export const OTHER = "other";

/** The methods the server answers; any other method token a client sends is "other". */
export const METHOD_LABELS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Status codes counted by their number; any other code by its class ("2xx"), or "other" outside 100-599. */
export const STATUS_LABELS: ReadonlySet<number> = new Set([
  101,
  200,
  201,
  202,
  204,
  206,
  301,
  302,
  303,
  304,
  307,
  308,
  400,
  401,
  403,
  404,
  405,
  406,
  408,
  409,
  410,
  411,
  412,
  413,
  414,
  415,
  416,
  422,
  429,
  431,
  500,
  501,
  502,
  503,
  504,
]);

export function methodLabel(method: string): string {
  return METHOD_LABELS.has(method) ? method : OTHER;
}

export function statusLabel(status: number): string {
  if (STATUS_LABELS.has(status)) return String(status);
  return Number.isInteger(status) && status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : OTHER;
}

/**
 * A last bound under the closed sets: at most this many method/route/status combinations are
 * counted apart (the server's routes give a few hundred); any further one is counted as
 * other/other/other. Each combination is 16 series (a counter and a histogram).
 */
export const MAX_REQUEST_LABEL_SETS = 2_000;

/**
 * The server's Prometheus metrics (text format at GET /metrics). Request counts and latencies are
 * counted as requests finish; the rest is read from the database when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<"method" | "route" | "status">;
  readonly #latency: Histogram<"method" | "route" | "status">;
  readonly #refusals: Counter<"route">;
  /** The route patterns the app registered (the closed set of route labels), read at the first request. */
  #routePatterns: () => Iterable<string> = () => [];
  #routes: ReadonlySet<string> | undefined;
  readonly #labelSets = new Set<string>();

  constructor(platform: Platform) {
    const registers = [this.registry];
    const db = platform.db;
    this.#requests = new Counter({
      name: "fitness_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status code",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.#latency = new Histogram({
      name: "fitness_http_request_duration_seconds",
      help: "Time from receiving a request to its response, by method, route pattern and status code",
      labelNames: ["method", "route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.#refusals = new Counter({
      name: "fitness_rate_limit_refusals_total",
      help:
        "Requests refused by a rate limit (the API's 403 Rate Limit Exceeded, 429 sign-in throttling), by route pattern",
      labelNames: ["route"],
      registers,
    });
    new Gauge({
      name: "fitness_uploads",
      help: "Uploads by state (processing = waiting for or in the upload job)",
      labelNames: ["state"],
      registers,
      async collect() {
        const rows = await uploadCountsByStatus(db);
        this.reset();
        for (const state of Object.keys(UPLOAD_STATUS)) this.set({ state }, 0);
        for (const row of rows) this.set({ state: UPLOAD_STATE[row.status] ?? "other" }, row.n);
      },
    });
    new Gauge({
      name: "fitness_job_queue_depth",
      help: "Jobs waiting or running, by kind (counted up to 10000)",
      labelNames: ["kind"],
      registers,
      async collect() {
        this.reset();
        for (const [kind, queue] of await platform.jobs.queue(10_000)) this.set({ kind }, queue.depth);
      },
    });
    new Gauge({
      name: "fitness_job_queue_oldest_seconds",
      help: "Age of the oldest waiting or running job, by kind, since this server first saw it pending (0 = none)",
      labelNames: ["kind"],
      registers,
      async collect() {
        this.reset();
        for (const [kind, queue] of await platform.jobs.queue(10_000)) this.set({ kind }, queue.oldestSeconds);
      },
    });
    new Gauge({
      name: "fitness_event_log_position",
      help: "Global position of the last event in the log",
      registers,
      async collect() {
        this.set(await lastPosition(db));
      },
    });
    new Gauge({
      name: "fitness_projection_lag_events",
      help: "Events in the log that read models handle but have not applied yet",
      registers,
      async collect() {
        this.set(await unappliedEvents(db, HANDLED_TYPES));
      },
    });
  }

  /**
   * Where the closed set of route labels comes from: the app's registered route patterns (read once,
   * at the first request counted, when every route is mounted). Any other route is "other".
   */
  routesFrom(patterns: () => Iterable<string>): void {
    this.#routePatterns = patterns;
    this.#routes = undefined;
  }

  /** A registered route pattern, or "other". */
  routeLabel(route: string): string {
    this.#routes ??= new Set(this.#routePatterns());
    return this.#routes.has(route) ? route : OTHER;
  }

  /** The labels a finished request is counted under: each value from its closed set. */
  labelsOf(r: Pick<RequestRecord, "method" | "route" | "status">): { method: string; route: string; status: string } {
    const labels = { method: methodLabel(r.method), route: this.routeLabel(r.route), status: statusLabel(r.status) };
    const key = `${labels.method} ${labels.route} ${labels.status}`;
    if (!this.#labelSets.has(key)) {
      if (this.#labelSets.size >= MAX_REQUEST_LABEL_SETS) return { method: OTHER, route: OTHER, status: OTHER };
      this.#labelSets.add(key);
    }
    return labels;
  }

  /** Counts one finished request. */
  observe(r: RequestRecord): void {
    const labels = this.labelsOf(r);
    this.#requests.inc(labels);
    this.#latency.observe(labels, r.seconds);
    if (r.rateLimited) this.#refusals.inc({ route: labels.route });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
