import { Counter, Gauge, Histogram, Registry } from "prom-client";
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
 * The server's Prometheus metrics (text format at GET /metrics). Request counts and latencies are
 * counted as requests finish; the rest is read from the database when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<"method" | "route" | "status">;
  readonly #latency: Histogram<"method" | "route" | "status">;
  readonly #refusals: Counter<"route">;

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
      help: "Requests refused by a rate limit (the API's 403 Rate Limit Exceeded, 429 sign-in throttling), by route pattern",
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
        const [row] = await db.query<{ p: number | bigint }>("select coalesce(max(global_position), 0) as p from public.events");
        this.set(Number(row.p));
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

  /** Counts one finished request. */
  observe(r: RequestRecord): void {
    const labels = { method: r.method, route: r.route, status: String(r.status) };
    this.#requests.inc(labels);
    this.#latency.observe(labels, r.seconds);
    if (r.rateLimited) this.#refusals.inc({ route: r.route });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
