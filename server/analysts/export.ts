import { stringify } from "csv-stringify/sync";
import { exportPage, logHoldsType } from "../../events/log-queries.ts";
import type { EventStore } from "../../events/store.ts";
import { type LogBound, logEnd } from "./log-bounds.ts";

export type ExportFormat = "csv" | "ndjson";

/** The columns of an export, in order (CSV header = these names; ndjson keys = the same). */
export const EXPORT_COLUMNS = [
  "position",
  "stream_id",
  "stream_version",
  "type",
  "schema_version",
  "recorded_at",
  "data",
  "metadata",
] as const;

export interface ExportOptions {
  format: ExportFormat;
  types?: string[];
  stream?: string;
  /** Inclusive lower bound (position or recorded time). */
  from?: LogBound;
  /** Inclusive upper bound (position or recorded time). */
  to?: LogBound;
  /** Events per page read from the database (memory stays bounded by one page). */
  pageSize?: number;
}

/** One event as exported: data and metadata are the stored JSON text (not upcast). */
export interface ExportRow {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  schema_version: number;
  recorded_at: string;
  data: string;
  metadata: string;
}

/** An option names an event type neither the catalogue nor the log knows. */
export class UnknownTypeError extends Error {}

/** Refuses event types that the store's catalogue does not define and its log never held. */
export async function checkTypes(store: EventStore, types: string[]): Promise<void> {
  for (const type of types) {
    if (store.catalogue.definition(type)) continue;
    if (!(await logHoldsType(store.db, type))) {
      throw new UnknownTypeError(
        `unknown event type ${type} (see docs/events.md for the catalogue)`,
      );
    }
  }
}

/** One exported event as an ndjson line (with its newline). */
export function ndjsonLine(row: ExportRow): string {
  return `{"position":${row.position},"stream_id":${
    JSON.stringify(row.stream_id)
  },"stream_version":${row.stream_version},"type":${
    JSON.stringify(row.type)
  },"schema_version":${row.schema_version},"recorded_at":${
    JSON.stringify(row.recorded_at)
  },"data":${row.data},"metadata":${row.metadata}}\n`;
}

function csvText(rows: ExportRow[], header: boolean): string {
  return stringify(
    rows.map((r) => EXPORT_COLUMNS.map((c) => r[c])),
    { header, columns: [...EXPORT_COLUMNS], record_delimiter: "unix" },
  );
}

/**
 * Streams events of the log to `write`, page by page in position order, so memory stays bounded
 * by one page whatever the log's size. Covers the events committed when it starts.
 */
export async function exportEvents(
  store: EventStore,
  options: ExportOptions,
  write: (chunk: string) => void | Promise<void>,
  onPage?: (exported: number, position: number) => void,
  onRows?: (rows: ExportRow[]) => void,
): Promise<{ events: number; lastPosition: number }> {
  if (options.types?.length) await checkTypes(store, options.types);
  const db = store.db;
  const end = await logEnd(db);
  const pageSize = options.pageSize ?? 1000;
  const filter = {
    types: options.types,
    stream: options.stream,
    fromPosition: options.from && "position" in options.from ? options.from.position : undefined,
    toPosition: options.to && "position" in options.to ? options.to.position : undefined,
    fromTime: options.from && "time" in options.from ? options.from.time : undefined,
    toTime: options.to && "time" in options.to ? options.to.time : undefined,
  };
  let position = 0;
  let events = 0;
  let last = 0;
  for (;;) {
    const rows: ExportRow[] = await exportPage(db, position, pageSize, end.position, filter);
    if (rows.length === 0) break;
    onRows?.(rows);
    const text = options.format === "csv" ? csvText(rows, events === 0) : rows.map(ndjsonLine).join("");
    await write(text);
    events += rows.length;
    position = rows[rows.length - 1].position;
    last = position;
    onPage?.(events, position);
    if (rows.length < pageSize) break;
  }
  // An empty CSV export still has its header.
  if (events === 0 && options.format === "csv") await write(csvText([], true));
  return { events, lastPosition: last };
}
