import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** What the athlete sets in the window (persisted as settings.json in the state folder). */
export interface Settings {
  server?: string;
  /** The OAuth application's client id the companion signs in with. */
  clientId?: string;
  clientSecret?: string;
  folders: string[];
  startAtLogin: boolean;
}

/** The default state folder: XDG config on Linux, Application Support on macOS, %APPDATA% on Windows. */
export function defaultStateDir(): string {
  if (process.env.COMPANION_STATE_DIR) return process.env.COMPANION_STATE_DIR;
  if (process.platform === "darwin") return join(homedir(), "Library", "Application Support", "Fitness Companion");
  if (process.platform === "win32") {
    return join(process.env.APPDATA ?? join(homedir(), "AppData", "Roaming"), "Fitness Companion");
  }
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "fitness-companion");
}

export function loadSettings(stateDir: string): Settings {
  const path = join(stateDir, "settings.json");
  const defaults: Settings = { folders: [], startAtLogin: false };
  if (!existsSync(path)) return defaults;
  try {
    return { ...defaults, ...JSON.parse(readFileSync(path, "utf8")) };
  } catch {
    return defaults;
  }
}

export function saveSettings(stateDir: string, settings: Settings): void {
  mkdirSync(stateDir, { recursive: true });
  const path = join(stateDir, "settings.json");
  writeFileSync(`${path}.tmp`, JSON.stringify(settings, null, 2), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
