import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";

/** The data types POST /v3/uploads accepts. */
export type DataType = "fit" | "fit.gz" | "tcx" | "tcx.gz" | "gpx" | "gpx.gz";

const DATA_TYPE = /\.(fit|tcx|gpx)(\.gz)?$/i;

/** The upload data_type from a file name (case-insensitive, `.gz` aware); undefined for other files. */
export function dataTypeOf(path: string): DataType | undefined {
  const match = DATA_TYPE.exec(basename(path));
  if (!match) return undefined;
  return `${match[1].toLowerCase()}${match[2] ? ".gz" : ""}` as DataType;
}

/** Whether the companion cares about this file at all (activity files only; hidden files skipped). */
export function isActivityFile(path: string): boolean {
  const name = basename(path);
  return !name.startsWith(".") && dataTypeOf(name) !== undefined;
}

/** The external_id sent with an upload: the file's name as the device wrote it. */
export function externalIdOf(path: string): string {
  return basename(path);
}

export interface ReadActivityFile {
  bytes: Uint8Array;
  size: number;
  sha256: string;
}

/** Reads a file (never writes it) and fingerprints it. */
export async function readActivityFile(path: string): Promise<ReadActivityFile> {
  const bytes = new Uint8Array(await readFile(path));
  return { bytes, size: bytes.byteLength, sha256: sha256Hex(bytes) };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A plain-words message for a file-system error (permission denied, file gone, device removed). */
export function fileErrorMessage(error: unknown): string {
  const code = (error as { code?: string })?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "The file can't be read: permission denied.";
    case "ENOENT":
      return "The file disappeared before it could be read (was the device unplugged?).";
    case "EIO":
    case "ENXIO":
    case "ENODEV":
      return "The device stopped answering while the file was read (was it unplugged?).";
    case "EISDIR":
      return "This is a folder, not a file.";
    default:
      return `The file can't be read: ${(error as Error)?.message ?? String(error)}`;
  }
}
