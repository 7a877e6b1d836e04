import { XMLParser, XMLValidator } from "fast-xml-parser";
import { IngestError } from "./types.ts";

export type XmlNode = Record<string, unknown>;

const ARRAYS = new Set([
  "trk", "trkseg", "trkpt", "extensions", "Activity", "Lap", "Track", "Trackpoint",
]);

/**
 * Parses a GPX or TCX document safely: DOCTYPE/ENTITY declarations are refused outright (no
 * entity expansion, so no "billion laughs"), namespace prefixes are dropped so any prefix works,
 * and element values stay strings.
 */
export function parseXml(bytes: Uint8Array, what: string): XmlNode {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  } catch {
    throw new IngestError(`The ${what} file is not readable text.`);
  }
  const head = text.slice(0, 4096);
  if (/<!DOCTYPE/i.test(head) || /<!ENTITY/i.test(text)) {
    throw new IngestError(`The ${what} file declares a DOCTYPE or entities, which are not accepted.`);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const err = valid.err;
    throw new IngestError(`The ${what} file is not well-formed XML (line ${err.line}: ${err.msg}).`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    removeNSPrefix: true,
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name: string) => ARRAYS.has(name),
  });
  try {
    return parser.parse(text) as XmlNode;
  } catch (error) {
    throw new IngestError(`The ${what} file could not be parsed: ${(error as Error).message}.`);
  }
}

/** The text of an element that may carry attributes (then the text is under "#text"). */
export function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (Array.isArray(value)) return textOf(value[0]);
  if (typeof value === "object" && "#text" in (value as XmlNode)) return textOf((value as XmlNode)["#text"]);
  return null;
}

export function child(node: unknown, name: string): unknown {
  if (node && typeof node === "object" && !Array.isArray(node)) return (node as XmlNode)[name];
  return undefined;
}

export function children(node: unknown, name: string): XmlNode[] {
  const value = child(node, name);
  if (value === undefined || value === null || value === "") return [];
  return (Array.isArray(value) ? value : [value]).map((v) => (typeof v === "object" && v !== null ? v as XmlNode : {}));
}

/** Time text → ms since epoch and the offset it states (seconds), or null when not a time. */
export function parseTime(text: string | null): { ms: number; offsetSeconds: number | null } | null {
  if (!text) return null;
  const t = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(t)) return null;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(t);
  const ms = new Date(hasZone ? t : `${t}Z`).getTime();
  if (!Number.isFinite(ms)) return null;
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(t);
  const offsetSeconds = m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : null;
  return { ms, offsetSeconds };
}

/** Sensor values found anywhere inside extension elements, by common local names. */
export interface ExtensionValues {
  heartrate: number | null;
  cadence: number | null;
  watts: number | null;
  temp: number | null;
  distance: number | null;
  speed: number | null;
}

const EXTENSION_KEYS: Record<string, keyof ExtensionValues> = {
  hr: "heartrate", heartrate: "heartrate", heartratebpm: "heartrate",
  cad: "cadence", cadence: "cadence", runcadence: "cadence",
  atemp: "temp", temp: "temp", wtemp: "temp", temperature: "temp",
  power: "watts", powerinwatts: "watts", watts: "watts",
  distance: "distance", speed: "speed",
};

export function extensionValues(nodes: unknown[]): ExtensionValues {
  const out: ExtensionValues = { heartrate: null, cadence: null, watts: null, temp: null, distance: null, speed: null };
  const walk = (node: unknown, depth: number) => {
    if (!node || typeof node !== "object" || depth > 6) return;
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(node as XmlNode)) {
      if (key.startsWith("@_")) continue;
      const target = EXTENSION_KEYS[key.toLowerCase()];
      const text = textOf(value);
      if (target && text !== null && out[target] === null) {
        const n = Number(text);
        if (Number.isFinite(n) && text.trim() !== "") out[target] = n;
        continue;
      }
      if (key.toLowerCase() === "heartratebpm") {
        const v = Number(textOf(child(value, "Value")));
        if (Number.isFinite(v) && out.heartrate === null) out.heartrate = v;
        continue;
      }
      walk(value, depth + 1);
    }
  };
  for (const node of nodes) walk(node, 0);
  return out;
}
