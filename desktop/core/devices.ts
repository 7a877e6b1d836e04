import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import process from "node:process";
import { XMLParser } from "fast-xml-parser";

/** A place activity files come from: a plugged-in device's activity folder or a folder the user added. */
export interface Source {
  /** Stable identity: `garmin:<serial>`, `volume:<label>` or `folder:<absolute path>`. */
  id: string;
  /** What the UI calls it ("Edge 530", "GARMIN", "~/Downloads/wahoo"). */
  name: string;
  kind: "device" | "folder";
  /** The folder watched for activity files. */
  folder: string;
  /** The mount point, for devices. */
  volume?: string;
  serial?: string;
}

/** Where removable volumes are mounted on this platform (Windows: the drive letters that exist). */
export function defaultVolumeRoots(platform: string = process.platform, user = currentUser()): string[] {
  if (platform === "darwin") return ["/Volumes"];
  if (platform === "win32") return ["(drives)"];
  return [`/media/${user}`, `/run/media/${user}`];
}

function currentUser(): string {
  return process.env.USER ?? process.env.LOGNAME ?? process.env.USERNAME ?? "";
}

/** The mount points under the given roots (each root's sub-folders; Windows: D:\ … Z:\). */
export function listVolumes(roots: string[]): string[] {
  const volumes: string[] = [];
  for (const root of roots) {
    if (root === "(drives)") {
      for (let c = 68; c <= 90; c++) {
        const drive = `${String.fromCharCode(c)}:\\`;
        if (safeExists(drive)) volumes.push(drive);
      }
      continue;
    }
    for (const name of safeReaddir(root)) {
      const path = join(root, name);
      if (isDirectory(path)) volumes.push(path);
    }
  }
  return volumes.sort();
}

/** A device on a volume: its GarminDevice.xml when present, else a Garmin `Activity` folder (any case). */
export function detectDevice(volume: string): Source | undefined {
  const label = basename(volume.replace(/[\\/:]+$/, "")) || volume;
  const garmin = childInsensitive(volume, "Garmin");
  const xmlPath = garmin ? childInsensitive(garmin, "GarminDevice.xml") : undefined;
  const info = xmlPath ? readGarminDeviceXml(xmlPath) : undefined;
  if (info?.activityPath) {
    const folder = pathInsensitive(volume, info.activityPath);
    if (folder) return device(volume, folder, info.serial, info.model ?? label);
  }
  for (const base of [garmin, volume]) {
    if (!base) continue;
    for (const name of ["Activity", "Activities"]) {
      const folder = childInsensitive(base, name);
      if (folder && isDirectory(folder)) return device(volume, folder, info?.serial, info?.model ?? label);
    }
  }
  return undefined;
}

function device(volume: string, folder: string, serial: string | undefined, name: string): Source {
  const label = basename(volume.replace(/[\\/:]+$/, "")) || volume;
  return { id: serial ? `garmin:${serial}` : `volume:${label}`, name, kind: "device", folder, volume, serial };
}

/** A folder the user added (Wahoo, COROS, Suunto exports, a drop folder). */
export function folderSource(folder: string): Source {
  const absolute = resolve(folder);
  return { id: `folder:${absolute}`, name: basename(absolute) || absolute, kind: "folder", folder: absolute };
}

export interface GarminDeviceInfo {
  serial?: string;
  model?: string;
  /** The activity folder relative to the volume (from the FIT_TYPE_4 / OutputFromUnit entry). */
  activityPath?: string;
}

/** Reads GarminDevice.xml: the unit id (serial), model description and where activities are written. */
export function readGarminDeviceXml(path: string): GarminDeviceInfo | undefined {
  let xml: string;
  try {
    xml = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  return parseGarminDeviceXml(xml);
}

export function parseGarminDeviceXml(xml: string): GarminDeviceInfo | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = new XMLParser({ removeNSPrefix: true, processEntities: false, parseTagValue: false }).parse(xml);
  } catch {
    return undefined;
  }
  const root = obj(doc.Device);
  if (!root) return undefined;
  const serial = text(root.Id);
  const model = text(obj(root.Model)?.Description);
  let activityPath: string | undefined;
  for (const dataType of list(obj(root.MassStorageMode)?.DataType)) {
    const d = obj(dataType);
    if (!d || !/^FIT_TYPE_4$/i.test(text(d.Name) ?? "")) continue;
    for (const file of list(d.File)) {
      const f = obj(file);
      if (!f || !/OutputFromUnit/i.test(text(f.TransferDirection) ?? "")) continue;
      activityPath = text(obj(f.Location)?.Path) ?? activityPath;
    }
  }
  return { serial, model, activityPath };
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}
function list(v: unknown): unknown[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
function text(v: unknown): string | undefined {
  if (typeof v === "string" || typeof v === "number") return String(v).trim() || undefined;
  const o = obj(v);
  if (o && "#text" in o) return text(o["#text"]);
  return undefined;
}

/** The child of `dir` whose name equals `name` ignoring case (FAT volumes and device firmware vary). */
export function childInsensitive(dir: string, name: string): string | undefined {
  const exact = join(dir, name);
  if (safeExists(exact)) return exact;
  const lower = name.toLowerCase();
  const found = safeReaddir(dir).find((n) => n.toLowerCase() === lower);
  return found ? join(dir, found) : undefined;
}

function pathInsensitive(base: string, relative: string): string | undefined {
  let current = base;
  for (const part of relative.split(/[\\/]+/).filter(Boolean)) {
    const next = childInsensitive(current, part);
    if (!next) return undefined;
    current = next;
  }
  return isDirectory(current) ? current : undefined;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
function safeExists(path: string): boolean {
  try {
    return existsSync(path);
  } catch {
    return false;
  }
}
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
