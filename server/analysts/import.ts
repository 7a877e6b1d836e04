import { createReadStream, existsSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { parse as parseCsv } from "csv-parse";
import type { EventCatalogue } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import { continueLogAfter, insertImportedEvents, logHoldsEvents } from "../../events/log-queries.ts";
import { parseJsonExact, toJson } from "../../shared/json.ts";
import { advanceId, ID_KINDS, type IdKind } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { EXPORT_COLUMNS } from "./export.ts";
import { blobDirOf } from "../blobs.ts";
import { type NamedBlobs, namedBlobsLedger, noteNaming } from "../ops/blob-check.ts";
import { blobDirBeside, bringBlobs } from "../ops/blob-transfer.ts";

/** The import file is malformed: nothing was written. */
export class ImportError extends Error {}

interface ImportedEvent {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  schema_version: number;
  recorded_at: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** Data fields holding ids drawn from server/ids.ts sequences: athleteId → athlete, … */
const ID_FIELDS = new Map<string, IdKind>(
  ID_KINDS.map((kind) => [kind.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()) + "Id", kind]),
);

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

function positiveInt(value: unknown): number | undefined {
  if (typeof value === "string" && /^\d+$/.test(value)) value = Number(value);
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** Checks one record's shape and its data against the store's catalogue (after upcasting). */
function toEvent(catalogue: EventCatalogue, record: Record<string, unknown>): ImportedEvent {
  const missing = EXPORT_COLUMNS.filter((c) => !(c in record));
  if (missing.length) throw new Error(`missing ${missing.join(", ")}`);
  const position = positiveInt(record.position);
  if (position === undefined) throw new Error("position must be a positive integer");
  const streamVersion = positiveInt(record.stream_version);
  if (streamVersion === undefined) throw new Error("stream_version must be a positive integer");
  const schemaVersion = positiveInt(record.schema_version);
  if (schemaVersion === undefined) throw new Error("schema_version must be a positive integer");
  if (typeof record.stream_id !== "string" || record.stream_id === "") {
    throw new Error("stream_id must be a non-empty string");
  }
  if (typeof record.type !== "string") throw new Error("type must be a string");
  if (
    typeof record.recorded_at !== "string" || !ISO_TIME.test(record.recorded_at) ||
    Number.isNaN(Date.parse(record.recorded_at))
  ) {
    throw new Error("recorded_at must be an ISO 8601 time");
  }
  if (!isObject(record.data)) throw new Error("data must be a JSON object");
  if (!isObject(record.metadata)) throw new Error("metadata must be a JSON object");
  const definition = catalogue.definition(record.type);
  if (!definition) throw new Error(`unknown event type ${record.type}`);
  if (schemaVersion > definition.version) {
    throw new Error(
      `${record.type} schema version ${schemaVersion} is newer than this server's (${definition.version})`,
    );
  }
  let current: unknown;
  try {
    current = catalogue.upcast(record.type, schemaVersion, record.data);
  } catch (error) {
    throw new Error((error as Error).message);
  }
  const parsed = definition.schema.safeParse(current);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${record.type} data does not match its schema: ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
  }
  return {
    position,
    stream_id: record.stream_id,
    stream_version: streamVersion,
    type: record.type,
    schema_version: schemaVersion,
    recorded_at: record.recorded_at,
    data: record.data,
    metadata: record.metadata,
  };
}

/** Reads the records of an ndjson or CSV export, one at a time, with their line numbers. */
async function* records(file: string, format: "csv" | "ndjson"): AsyncGenerator<{ line: number; record: unknown }> {
  if (format === "ndjson") {
    const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
    let line = 0;
    for await (const text of lines) {
      line++;
      if (text.trim() === "") continue;
      let record: unknown;
      try {
        record = parseJsonExact(text);
      } catch {
        throw new ImportError(`${file}:${line}: not valid JSON (corrupt or truncated file); nothing was imported`);
      }
      yield { line, record };
    }
    return;
  }
  const parser = createReadStream(file).pipe(
    parseCsv({ columns: true, relax_column_count: false, skip_empty_lines: true }),
  );
  let row = 1;
  try {
    for await (const csvRecord of parser) {
      row++;
      const record = { ...(csvRecord as Record<string, unknown>) };
      for (const field of ["data", "metadata"] as const) {
        try {
          record[field] = parseJsonExact(String(record[field]));
        } catch {
          throw new ImportError(
            `${file}: record ${row - 1}: ${field} is not valid JSON (corrupt or truncated file); nothing was imported`,
          );
        }
      }
      yield { line: row, record };
    }
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(`${file}: not a valid CSV export (${(error as Error).message}); nothing was imported`);
  }
}

export interface ImportReport {
  events: number;
  streams: number;
  lastPosition: number;
  /** Blobs the events name, and how many of them (and bytes) came from the blob directory. */
  blobsNamed: number;
  blobsBrought: number;
  blobBytes: number;
}

/**
 * Imports an export (ndjson, or CSV with the export's columns) into an EMPTY store, keeping
 * positions, stream versions, types, schema versions, data, metadata and recorded times. Everything
 * is checked and written in one transaction, so a bad file leaves the store unchanged. Afterwards the
 * id sequences are moved past the imported ids; the caller replays the read models.
 *
 * The blobs the events name (events/blob-names.ts) come from `FILE.blobs/` (written beside the file
 * by `export --out FILE`), in the same transaction; when one is neither there nor already stored,
 * the import refuses and names it with the events that need it: no event arrives without its blobs.
 */
export async function importEvents(
  platform: Platform,
  file: string,
  options: { format?: "csv" | "ndjson"; batch?: number; onProgress?: (events: number) => void; blobsDir?: string } = {},
): Promise<ImportReport> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new ImportError(`${file}: no such file`);
  const format = options.format ?? (file.toLowerCase().endsWith(".csv") ? "csv" : "ndjson");
  const batchSize = options.batch ?? 1000;
  const fileDir = blobDirOf(platform.db);
  return await platform.db.transaction(async (tx) => {
    if (await logHoldsEvents(tx)) {
      throw new ImportError(
        "the event store is not empty: import only fills a new, empty store (nothing was imported)",
      );
    }
    const versions = new Map<string, number>();
    const maxIds = new Map<IdKind, number>();
    let lastPosition = 0;
    let count = 0;
    let batch: ImportedEvent[] = [];
    // The blobs the file's events need: named, less those a later event released (events/blob-names.ts).
    const ledger = namedBlobsLedger();
    const named: NamedBlobs = ledger.needed;
    const flush = async () => {
      if (batch.length === 0) return;
      await insertBatch(tx, batch);
      count += batch.length;
      batch = [];
      options.onProgress?.(count);
    };
    for await (const { line, record } of records(file, format)) {
      if (!isObject(record)) throw new ImportError(`${file}:${line}: not a JSON object; nothing was imported`);
      let event: ImportedEvent;
      try {
        event = toEvent(platform.store.catalogue, record);
      } catch (error) {
        throw new ImportError(`${file}:${line}: ${(error as Error).message}; nothing was imported`);
      }
      if (event.position <= lastPosition) {
        throw new ImportError(
          `${file}:${line}: position ${event.position} does not follow ${lastPosition}; nothing was imported`,
        );
      }
      const previous = versions.get(event.stream_id) ?? 0;
      if (event.stream_version <= previous) {
        throw new ImportError(
          `${file}:${line}: stream ${event.stream_id} version ${event.stream_version} does not follow ${previous}; nothing was imported`,
        );
      }
      versions.set(event.stream_id, event.stream_version);
      lastPosition = event.position;
      for (const [field, value] of Object.entries(event.data)) {
        const kind = ID_FIELDS.get(field);
        if (kind && typeof value === "number" && Number.isSafeInteger(value)) {
          maxIds.set(kind, Math.max(maxIds.get(kind) ?? 0, value));
        }
      }
      noteNaming(ledger, { position: event.position, type: event.type, stream_id: event.stream_id }, event.data);
      batch.push(event);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    if (count === 0) throw new ImportError(`${file}: holds no events; nothing was imported`);
    await continueLogAfter(tx, lastPosition);
    for (const [kind, max] of maxIds) await advanceId(tx, kind, max);
    let brought;
    try {
      brought = await bringBlobs(tx, fileDir, options.blobsDir ?? blobDirBeside(file), named, file);
    } catch (error) {
      throw new ImportError((error as Error).message);
    }
    return {
      events: count,
      streams: versions.size,
      lastPosition,
      blobsNamed: named.size,
      blobsBrought: brought.blobs,
      blobBytes: brought.bytes,
    };
  });
}

async function insertBatch(tx: Queryable, batch: ImportedEvent[]): Promise<void> {
  await insertImportedEvents(tx, toJson(batch));
}
