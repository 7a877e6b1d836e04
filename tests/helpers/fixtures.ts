import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname!, "../..");

/** Permissively licensed device files copied into the project (see its SOURCES.md). */
export const DEVICES = join(ROOT, "tests/fixtures/devices");

/**
 * The whole corpus beside the project, copyleft files included. Only `*.shared.test.ts` suites read
 * it; they run where the folder is present (every developer machine and CI).
 */
export const SHARED_DEVICES = resolve(ROOT, "../shared/fixtures/devices");
export const hasSharedDevices = existsSync(SHARED_DEVICES);

/** Path of a device file: the project's copy when it has one, else the shared corpus. */
export function deviceFile(relative: string): string {
  const local = join(DEVICES, relative);
  return existsSync(local) ? local : join(SHARED_DEVICES, relative);
}
