import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DataType } from "./files.ts";

/** Where a file stands. `queued`/`uploading`/`processing` are the durable queue; the rest are final. */
export type FileStatus = "queued" | "uploading" | "processing" | "ready" | "duplicate" | "error" | "deleted";

export const FINAL_STATUSES: ReadonlySet<FileStatus> = new Set(["ready", "duplicate", "error", "deleted"]);

/**
 * One file the companion has seen: device serial or volume + file name + size + sha-256 → upload id →
 * activity id. A copy or renamed file with the same content gets its own entry marked `duplicate`.
 */
export interface LedgerEntry {
  key: string;
  sourceId: string;
  sourceName: string;
  name: string;
  size: number;
  sha256: string;
  /** Where it was last seen. */
  path: string;
  dataType: DataType;
  externalId: string;
  status: FileStatus;
  uploadId?: string;
  activityId?: string;
  /** For duplicates: the activity that already holds this recording (when known). */
  duplicateOfActivityId?: string;
  /** For local duplicates: the entry with the same content. */
  duplicateOfKey?: string;
  /** Final error (processing failed) or, while queued, the last transient problem. */
  error?: string;
  /** Whether a POST may have reached the server (so a later "duplicate" is really our own upload). */
  submitted?: boolean;
  attempts: number;
  nextAttemptAt?: number;
  seenAt: string;
  updatedAt: string;
}

export function entryKey(sourceId: string, name: string, size: number, sha256: string): string {
  return `${sourceId}|${name}|${size}|${sha256}`;
}

/** The persisted ledger: `ledger.json` in the state folder, rewritten atomically on every change. */
export class Ledger {
  readonly #path: string;
  readonly #filesDir: string;
  readonly #byKey = new Map<string, LedgerEntry>();
  readonly #primaryByHash = new Map<string, LedgerEntry>();

  private constructor(readonly stateDir: string) {
    this.#path = join(stateDir, "ledger.json");
    this.#filesDir = join(stateDir, "files");
  }

  static open(stateDir: string): Ledger {
    mkdirSync(join(stateDir, "files"), { recursive: true });
    const ledger = new Ledger(stateDir);
    if (existsSync(ledger.#path)) {
      const raw = readFileSync(ledger.#path, "utf8");
      let parsed: { entries?: LedgerEntry[] };
      try {
        parsed = JSON.parse(raw);
      } catch {
        // Keep the damaged file for inspection; the server's duplicate check still prevents double uploads.
        renameSync(ledger.#path, `${ledger.#path}.damaged-${Date.now()}`);
        parsed = {};
      }
      for (const entry of parsed.entries ?? []) ledger.#index(entry);
    }
    return ledger;
  }

  #index(entry: LedgerEntry): void {
    this.#byKey.set(entry.key, entry);
    if (entry.status !== "duplicate" || !entry.duplicateOfKey) {
      if (!this.#primaryByHash.has(entry.sha256)) this.#primaryByHash.set(entry.sha256, entry);
    }
  }

  get(key: string): LedgerEntry | undefined {
    return this.#byKey.get(key);
  }

  /** The entry that was (or is being) uploaded for this content, if any. */
  byHash(sha256: string): LedgerEntry | undefined {
    return this.#primaryByHash.get(sha256);
  }

  entries(): LedgerEntry[] {
    return [...this.#byKey.values()];
  }

  add(entry: LedgerEntry): LedgerEntry {
    this.#index(entry);
    this.save();
    return entry;
  }

  update(key: string, patch: Partial<LedgerEntry>): LedgerEntry {
    const entry = this.#byKey.get(key);
    if (!entry) throw new Error(`no ledger entry ${key}`);
    Object.assign(entry, patch, { updatedAt: new Date().toISOString() });
    this.save();
    return entry;
  }

  save(): void {
    const tmp = `${this.#path}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, entries: this.entries() }, null, 1));
    renameSync(tmp, this.#path);
  }

  /** A private copy of a queued file, so the queue survives the device being unplugged. */
  stash(sha256: string, bytes: Uint8Array): void {
    const path = this.stashPath(sha256);
    if (!existsSync(path)) {
      writeFileSync(`${path}.tmp`, bytes);
      renameSync(`${path}.tmp`, path);
    }
  }

  stashPath(sha256: string): string {
    return join(this.#filesDir, sha256);
  }

  unstash(sha256: string): void {
    rmSync(this.stashPath(sha256), { force: true });
  }
}
