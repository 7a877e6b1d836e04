import type { Platform } from "../platform.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  required?: boolean;
  multiple?: boolean;
  /** A file path: made absolute in the CLI's directory before the command may run inside the server. */
  path?: boolean;
}

/** Where a command writes progress (stderr locally; collected when run through the server). */
export interface CliIo {
  progress(text: string): void;
  /** Whether progress can redraw one line (a terminal). */
  interactive: boolean;
  /**
   * The terminal's file descriptor, when progress may be drawn on it from another thread (local
   * runs): the line then keeps moving while this thread runs a long statement.
   */
  progressFd?: number;
  /** Streams output to stdout as it is produced (local runs only; absent inside the server). */
  write?(chunk: string): Promise<void>;
}

/**
 * One admin CLI command. It runs against an opened platform, either in the CLI's own process or
 * inside the running server (reached through its loopback admin endpoint), so every command works
 * whether or not the server runs.
 */
export interface CliCommand {
  /** Words that name it: "athlete create". */
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** One optional positional argument (e.g. `import FILE`), passed as options[name]. */
  positional?: { name: string; description: string; path?: boolean };
  run(platform: Platform, options: Record<string, unknown>, io: CliIo): Promise<unknown>;
  /**
   * Runs without opening the platform, always in the CLI's own process (e.g. `restore`, which fills
   * an empty data directory). When set, `run` is never called.
   */
  standalone?(options: Record<string, unknown>, io: CliIo): Promise<unknown>;
  /**
   * Opens the embedded database with a small buffer cache (32MB unless PGLITE_SHARED_BUFFERS says
   * otherwise): a long command that writes a lot (import-archive) keeps its memory bounded.
   */
  smallDatabaseCache?: boolean;
  /**
   * May run on a missing or empty data directory (or a PostgreSQL database without the platform's
   * tables), creating the store: the commands that start a platform (`athlete create`, `import`).
   * Every other command refuses such a store (exit 2, one line naming it) instead of creating one.
   */
  createsStore?: boolean;
  /** Human-readable form of the result (default: key: value lines). */
  format?(result: unknown): string;
}

export class CliUsageError extends Error {}

/** The store a command would read is not there (a missing or empty DATA_DIR, a database without the platform): exit 2, one line. */
export class NoStoreError extends Error {}

export function requireString(options: Record<string, unknown>, name: string): string {
  const value = options[name];
  if (typeof value !== "string" || value === "") throw new CliUsageError(`--${name} is required`);
  return value;
}

export function optionalString(options: Record<string, unknown>, name: string): string | undefined {
  const value = options[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

export function requireInt(options: Record<string, unknown>, name: string): number {
  const text = requireString(options, name);
  if (!/^\d+$/.test(text)) throw new CliUsageError(`--${name} must be a positive integer`);
  return Number(text);
}

export function optionalNumber(options: Record<string, unknown>, name: string): number | undefined {
  const text = optionalString(options, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new CliUsageError(`--${name} must be a number`);
  return n;
}
