import { type Db, isDatabaseUnavailable } from "../../events/db/types.ts";
import { randomSecret } from "../security.ts";

/**
 * A durable job kind. Its state lives in events and read models: `pending` finds work that is not
 * finished (e.g. uploads still "being processed"), so a restart simply finds it again. `run` must
 * be idempotent (append its result events with an idempotency key).
 */
export interface JobKind {
  kind: string;
  pending(db: Db, limit: number): Promise<string[]>;
  run(id: string): Promise<void>;
  /**
   * Seconds a claim lasts unless renewed (default 30). While the job runs, this server renews it
   * every third of that (a heartbeat), so a long run keeps it and a crashed server's jobs are taken
   * over by another within this long.
   */
  leaseSeconds?: number;
  /** Failed runs before `giveUp` (default 5). */
  maxAttempts?: number;
  /** Records that a job failed for good (e.g. the upload's error), so it is no longer pending. */
  giveUp?(id: string, message: string): Promise<void>;
}

export const JOB_SCHEMA = `
create table if not exists public.job_leases (
  kind text not null,
  id text not null,
  owner text not null,
  expires_at timestamptz not null,
  attempts integer not null default 0,
  primary key (kind, id)
);`;

/** How long a claim lasts unless its server renews it (docs/operators.md, "Jobs and leases"). */
export const DEFAULT_LEASE_SECONDS = 30;

/** Polls every registered kind for pending work; claims with a lease so several servers share. */
export class JobRunner {
  readonly #kinds = new Map<string, JobKind>();
  readonly #owner = randomSecret(8);
  readonly #running = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  #wake: (() => void) | undefined;
  /** A kick arrived since the last pass began: the next pass starts without waiting. */
  #kicked = false;
  #loop: Promise<void> | undefined;
  /** The heartbeat that renews the leases of the jobs running here. */
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  /** When this server first saw each pending job ("kind:id"), for the queue age metric. */
  readonly #firstSeen = new Map<string, number>();

  constructor(
    readonly db: Db,
    readonly options: { pollMs?: number; concurrency?: number; retryBaseSeconds?: number } = {},
  ) {}

  register(kind: JobKind): void {
    this.#kinds.set(kind.kind, kind);
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    // Embedded PGlite: this process is the only one on the data, so claims left by a process that
    // died (its leases still on disk) are nobody's: its jobs resume at once, not when those expire
    // (their attempts count on; retry back-offs, owned by nobody, stay).
    const cleared = this.db.kind === "pglite"
      ? this.db.query("update public.job_leases set expires_at = now() where owner <> ''").catch(() => {})
      : Promise.resolve();
    this.#loop = cleared.then(() => this.#run());
    const shortest = Math.min(DEFAULT_LEASE_SECONDS, ...[...this.#kinds.values()].map(leaseOf));
    this.#heartbeat = setInterval(() => void this.#renew(), (shortest * 1000) / 3);
  }

  /** Whether the runner is polling for work (started and not stopped). */
  get running(): boolean {
    return !this.#stopped;
  }

  /**
   * Stops polling, waits for the jobs in progress to finish their current run, and releases every
   * lease this runner still holds (e.g. of jobs waiting for a retry), so another server takes them
   * over at once instead of after the lease expires.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.kick();
    await this.#loop;
    while (this.#running.size > 0) await new Promise((r) => setTimeout(r, 20));
    clearInterval(this.#heartbeat);
    await this.db.query("delete from public.job_leases where owner = $1", [this.#owner]).catch(() => {});
  }

  /** Per kind: how many jobs are pending (up to `limit`) and the age of the oldest this runner has seen. */
  async queue(limit: number): Promise<Map<string, { depth: number; oldestSeconds: number }>> {
    const now = Date.now();
    const result = new Map<string, { depth: number; oldestSeconds: number }>();
    const pending = new Set<string>();
    for (const kind of this.#kinds.values()) {
      const ids = await kind.pending(this.db, limit);
      let oldest = now;
      for (const id of ids) {
        const key = `${kind.kind}:${id}`;
        pending.add(key);
        const seen = this.#firstSeen.get(key) ?? now;
        this.#firstSeen.set(key, seen);
        oldest = Math.min(oldest, seen);
      }
      result.set(kind.kind, { depth: ids.length, oldestSeconds: (now - oldest) / 1000 });
    }
    for (const key of this.#firstSeen.keys()) if (!pending.has(key)) this.#firstSeen.delete(key);
    return result;
  }

  /** Looks for work now instead of at the next poll (also when a pass is running: another follows). */
  kick(): void {
    this.#kicked = true;
    this.#wake?.();
  }

  /**
   * Renews the leases of the jobs running here (the heartbeat): each kind's running ids in one
   * statement. A failure (the database away) is retried at the next beat; the lease lasts three.
   */
  async #renew(): Promise<void> {
    const byKind = new Map<string, string[]>();
    for (const key of this.#running) {
      const at = key.indexOf(":");
      const list = byKind.get(key.slice(0, at)) ?? [];
      list.push(key.slice(at + 1));
      byKind.set(key.slice(0, at), list);
    }
    for (const [name, ids] of byKind) {
      const kind = this.#kinds.get(name);
      if (!kind) continue;
      await this.db.query(
        `update public.job_leases set expires_at = now() + make_interval(secs => $4)
          where kind = $1 and id = any($2::text[]) and owner = $3`,
        [name, ids, this.#owner, leaseOf(kind)],
      ).catch(() => {});
    }
  }

  async #claim(kind: JobKind, id: string): Promise<boolean> {
    const rows = await this.db.query(
      `insert into public.job_leases (kind, id, owner, expires_at, attempts)
       values ($1, $2, $3, now() + make_interval(secs => $4), 1)
       on conflict (kind, id) do update
         set owner = excluded.owner, expires_at = excluded.expires_at,
             attempts = public.job_leases.attempts + 1
         where public.job_leases.expires_at < now() or public.job_leases.owner = excluded.owner
       returning id`,
      [kind.kind, id, this.#owner, leaseOf(kind)],
    );
    return rows.length > 0;
  }

  async #release(kind: JobKind, id: string): Promise<void> {
    await this.db.query("delete from public.job_leases where kind = $1 and id = $2 and owner = $3", [
      kind.kind,
      id,
      this.#owner,
    ]);
  }

  /**
   * A failed run is retried after a back-off that doubles with each attempt (1 s … 5 min), by any
   * server; after `maxAttempts` the kind's `giveUp` records the failure (so nothing stays pending).
   */
  async #failed(kind: JobKind, id: string, error: unknown): Promise<void> {
    const message = (error as Error)?.message ?? String(error);
    if (isDatabaseUnavailable(error)) {
      // Not the job's failure: the database went away. Its lease (this server's) stays; the job is
      // claimed again here or elsewhere once the database is back, and no attempt is used up.
      console.error(`jobs: ${kind.kind}:${id} stopped: the database is unavailable (${message})`);
      return;
    }
    console.error(`jobs: ${kind.kind}:${id} failed: ${message}`);
    try {
      const [lease] = await this.db.query<{ attempts: number }>(
        "select attempts from public.job_leases where kind = $1 and id = $2",
        [kind.kind, id],
      );
      const attempts = lease?.attempts ?? 1;
      if (kind.giveUp && attempts >= (kind.maxAttempts ?? 5)) {
        await kind.giveUp(id, message);
        await this.#release(kind, id);
        return;
      }
      await this.db.query(
        `update public.job_leases set owner = '', expires_at = now() + make_interval(secs => $3)
          where kind = $1 and id = $2`,
        [kind.kind, id, Math.min(300, (this.options.retryBaseSeconds ?? 1) * 2 ** Math.min(attempts - 1, 9))],
      );
    } catch (e) {
      console.error(`jobs: ${kind.kind}:${id}: could not record the failure: ${(e as Error).message}`);
    }
  }

  /** Runs one pass over every kind; resolves when the claimed jobs are started. */
  async #pass(): Promise<void> {
    const concurrency = this.options.concurrency ?? 2;
    for (const kind of this.#kinds.values()) {
      if (this.#running.size >= concurrency) return;
      let ids: string[];
      try {
        ids = await kind.pending(this.db, concurrency * 4);
      } catch (error) {
        console.error(`jobs: listing ${kind.kind} failed: ${(error as Error).message}`);
        continue;
      }
      for (const id of ids) {
        const key = `${kind.kind}:${id}`;
        if (!this.#firstSeen.has(key)) this.#firstSeen.set(key, Date.now());
        if (this.#running.has(key) || this.#running.size >= concurrency) continue;
        if (!(await this.#claim(kind, id).catch(() => false))) continue;
        this.#running.add(key);
        kind.run(id)
          .then(() => {
            this.#firstSeen.delete(key);
            return this.#release(kind, id).catch(() => {});
          })
          .catch((error) => this.#failed(kind, id, error))
          .finally(() => {
            this.#running.delete(key);
            this.kick();
          });
      }
    }
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      this.#kicked = false;
      await this.#pass().catch((error) => console.error(`jobs: ${(error as Error).message}`));
      if (this.#kicked) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = setTimeout(resolve, this.options.pollMs ?? 500);
      });
      clearTimeout(this.#timer);
      this.#wake = undefined;
    }
  }
}

function leaseOf(kind: JobKind): number {
  return kind.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
}
