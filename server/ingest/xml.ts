import { SaxesParser } from "saxes";
import { IngestError } from "./types.ts";

/** An element as the streaming reader reports it: local name (prefix dropped) and attributes. */
export interface XmlElement {
  /** Local name, namespace prefix dropped, so any prefix works. */
  name: string;
  /** Attributes by local name; values are raw strings. */
  attributes: Record<string, string>;
}

/**
 * What a format parser does with the document as it streams by. `path` holds the local names of
 * the open elements, outermost first, the current one last.
 */
export interface XmlVisitor {
  open(element: XmlElement, path: readonly string[]): void;
  /** `text` is the element's own text (trimmed), seen since its last child element. */
  close(name: string, text: string, path: readonly string[]): void;
}

/** Bytes decoded and fed to the parser at a time: the document is never one string. */
const CHUNK_BYTES = 1 << 20;

const localName = (qualified: string) => {
  const colon = qualified.indexOf(":");
  return colon === -1 ? qualified : qualified.slice(colon + 1);
};

/**
 * Reads a GPX or TCX document as a stream of elements (saxes, a conforming non-validating SAX
 * parser), without ever building its tree or holding it as one string. DOCTYPE (and so any
 * ENTITY) declarations are refused outright: only the five predefined entities and character
 * references are understood, nothing is expanded from a declaration (no "billion laughs", no
 * external entities). A UTF-8 BOM and whitespace before the XML declaration are accepted.
 */
export function streamXml(bytes: Uint8Array, what: string, visitor: XmlVisitor): void {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const path: string[] = [];
  let text = "";
  parser.on("doctype", () => {
    throw new IngestError(`The ${what} file declares a DOCTYPE or entities, which are not accepted.`);
  });
  parser.on("error", (error: Error) => {
    // saxes prefixes the message with the position ("1:23: "); the line is stated once, our way.
    const message = String(error.message).replace(/^\d+:\d+:\s*/, "");
    throw new IngestError(`The ${what} file is not well-formed XML (line ${parser.line}: ${message}).`);
  });
  parser.on("opentag", (node) => {
    const name = localName(node.name);
    const attributes: Record<string, string> = {};
    const raw = node.attributes as Record<string, string>;
    for (const key in raw) attributes[localName(key)] = raw[key];
    path.push(name);
    text = "";
    visitor.open({ name, attributes }, path);
  });
  parser.on("text", (t) => (text += t));
  parser.on("cdata", (t) => (text += t));
  parser.on("closetag", (node) => {
    visitor.close(localName(node.name), text.trim(), path);
    path.pop();
    text = "";
  });
  const decoder = new TextDecoder("utf-8", { fatal: false });
  // A BOM, then whitespace before "<?xml" (some exporters write it), are skipped: the declaration comes first.
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  while (
    start < bytes.length &&
    (bytes[start] === 0x20 || bytes[start] === 0x09 || bytes[start] === 0x0a || bytes[start] === 0x0d)
  ) start++;
  for (let offset = start; offset < bytes.length; offset += CHUNK_BYTES) {
    parser.write(
      decoder.decode(bytes.subarray(offset, Math.min(bytes.length, offset + CHUNK_BYTES)), { stream: true }),
    );
  }
  parser.write(decoder.decode());
  parser.close();
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
  hr: "heartrate",
  heartrate: "heartrate",
  heartratebpm: "heartrate",
  cad: "cadence",
  cadence: "cadence",
  runcadence: "cadence",
  atemp: "temp",
  temp: "temp",
  wtemp: "temp",
  temperature: "temp",
  power: "watts",
  powerinwatts: "watts",
  watts: "watts",
  distance: "distance",
  speed: "speed",
};

export function emptyExtensionValues(): ExtensionValues {
  return { heartrate: null, cadence: null, watts: null, temp: null, distance: null, speed: null };
}

/**
 * Collects one closing element found inside an extensions element: the first numeric value of each
 * known local name wins (TrackPointExtension v1/v2, cluetrust gpxdata, TPX, plain power, HeartRateBpm/Value).
 */
export function collectExtension(out: ExtensionValues, name: string, text: string, parent: string | undefined): void {
  const lower = name.toLowerCase();
  const target = EXTENSION_KEYS[lower] ??
    (lower === "value" && parent?.toLowerCase() === "heartratebpm" ? "heartrate" : undefined);
  if (!target || text === "" || out[target] !== null) return;
  const n = Number(text);
  if (Number.isFinite(n)) out[target] = n;
}
