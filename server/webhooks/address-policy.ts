/**
 * Where the server may send a request on an application developer's behalf (webhook handshakes and
 * deliveries): the one address policy. A callback host is resolved to every address it has, and
 * the callback is refused when ANY of them is not a public unicast address — loopback, private,
 * link-local, unique-local, CGNAT, unspecified, multicast, reserved, documentation, and the IPv6
 * forms that carry such an IPv4 address (mapped ::ffff:a.b.c.d, IPv4-compatible, NAT64 64:ff9b::/96,
 * 6to4 2002::/16; Teredo is refused outright). IPv4 literals are read in every form a URL or
 * inet_aton accepts: shorthand (127.1), one decimal number (2130706433), octal (0177.0.0.1) and
 * hex (0x7f.1). The operator setting WEBHOOKS_ALLOW_PRIVATE=1 lets everything through (a home lab);
 * a list of ranges (WEBHOOKS_ALLOW_PRIVATE=192.168.1.0/24,fd00::/8) lets only those through.
 *
 * The outbound requests themselves (server/webhooks/outbound.ts) connect only to the addresses this
 * policy checked, and re-check every redirect hop.
 */
import { lookup } from "node:dns/promises";

export type AddressClass =
  | "public"
  | "unspecified"
  | "this-network"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "unique-local"
  | "site-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved"
  | "tunnel";

/** One address: its text (canonical) and family. */
export interface Address {
  address: string;
  family: 4 | 6;
}

/**
 * An IPv4 address in any form inet_aton / the URL standard reads: 1 to 4 dot-separated parts
 * (one trailing dot allowed), each decimal, octal (leading 0) or hex (0x); the last part fills the
 * remaining bytes (127.1 = 127.0.0.1, 2130706433 = 127.0.0.1). Null when it is not one.
 */
export function parseIPv4(text: string): number | null {
  let parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts = parts.slice(0, -1);
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return null;
    if (!Number.isFinite(value)) return null;
    numbers.push(value);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let result = last;
  numbers.forEach((n, i) => (result += n * 256 ** (3 - i)));
  return result >>> 0;
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

/**
 * An IPv6 address (with or without brackets; :: compression; a trailing dotted IPv4 part) as 16
 * bytes. Zone ids (fe80::1%eth0) are read as their address. Null when it is not one.
 */
export function parseIPv6(text: string): Uint8Array | null {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (i === pieces.length - 1 && piece.includes(".")) {
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return null;
        const bytes = piece.split(".").map(Number);
        if (bytes.some((b) => b > 255)) return null;
        out.push((bytes[0] << 8) | bytes[1], (bytes[2] << 8) | bytes[3]);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
      out.push(parseInt(piece, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    all = head;
  }
  if (all.length !== 8) return null;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 255;
  });
  return bytes;
}

const inV4 = (value: number, base: string, bits: number) => {
  const start = parseIPv4(base)!;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((value & mask) >>> 0) === ((start & mask) >>> 0);
};

/** The class of an IPv4 address (as a 32-bit number). */
export function classifyIPv4(value: number): AddressClass {
  if (value === 0) return "unspecified";
  if (value === 0xffffffff) return "broadcast";
  if (inV4(value, "0.0.0.0", 8)) return "this-network";
  if (inV4(value, "127.0.0.0", 8)) return "loopback";
  if (inV4(value, "10.0.0.0", 8) || inV4(value, "172.16.0.0", 12) || inV4(value, "192.168.0.0", 16)) return "private";
  if (inV4(value, "100.64.0.0", 10)) return "cgnat";
  if (inV4(value, "169.254.0.0", 16)) return "link-local";
  if (inV4(value, "192.0.2.0", 24) || inV4(value, "198.51.100.0", 24) || inV4(value, "203.0.113.0", 24)) {
    return "documentation";
  }
  if (inV4(value, "198.18.0.0", 15)) return "benchmarking";
  if (inV4(value, "224.0.0.0", 4)) return "multicast";
  // 192.0.0.0/24 IETF protocol assignments, 192.88.99.0/24 6to4 relays, 240.0.0.0/4 reserved.
  if (inV4(value, "192.0.0.0", 24) || inV4(value, "192.88.99.0", 24) || inV4(value, "240.0.0.0", 4)) return "reserved";
  return "public";
}

const v4At = (b: Uint8Array, i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
const zeros = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/** The class of an IPv6 address; forms that carry an IPv4 address take that address's class. */
export function classifyIPv6(b: Uint8Array): AddressClass {
  if (zeros(b, 0, 16)) return "unspecified";
  if (zeros(b, 0, 15) && b[15] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated), ::a.b.c.d (IPv4-compatible, deprecated).
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyIPv4(v4At(b, 12));
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12)) return classifyIPv4(v4At(b, 12));
  if (zeros(b, 0, 12)) return classifyIPv4(v4At(b, 12)) === "public" ? "reserved" : classifyIPv4(v4At(b, 12));
  // NAT64: the well-known prefix 64:ff9b::/96 reaches the embedded IPv4; 64:ff9b:1::/48 is local use.
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zeros(b, 4, 12)) return classifyIPv4(v4At(b, 12));
    if (b[4] === 0 && b[5] === 1) return "private";
  }
  // 6to4: 2002:aabb:ccdd::/48 reaches aa.bb.cc.dd.
  if (b[0] === 0x20 && b[1] === 0x02) return classifyIPv4(v4At(b, 2));
  // Teredo 2001:0::/32 (the client address is obfuscated): refused.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) return "tunnel";
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return "documentation";
  if (b[0] === 0x3f && b[1] === 0xff && (b[2] & 0xf0) === 0) return "documentation";
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0x02 && b[4] === 0 && b[5] === 0) return "benchmarking";
  // 2001::/23 holds IETF protocol assignments (ORCHID, AMT, …): not a host's address.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] < 0x02) return "reserved";
  if ((b[0] & 0xfe) === 0xfc) return "unique-local";
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return "link-local";
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return "site-local";
  if (b[0] === 0xff) return "multicast";
  // Only global unicast (2000::/3) is public; 100::/64 (discard) and the rest are reserved.
  if ((b[0] & 0xe0) !== 0x20) return "reserved";
  return "public";
}

/** The class of an address in text (IPv4 in any form, IPv6 with or without brackets); null if neither. */
export function classifyAddress(text: string): AddressClass | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  return v6 ? classifyIPv6(v6) : null;
}

/** A literal address in a URL's hostname (URL already normalizes IPv4 forms), or null for a name. */
export function literalAddress(hostname: string): Address | null {
  if (hostname.startsWith("[")) return parseIPv6(hostname) ? { address: hostname.slice(1, -1), family: 6 } : null;
  const v4 = parseIPv4(hostname);
  return v4 === null ? null : { address: formatIPv4(v4), family: 4 };
}

/** Resolves a host name to every address it has (A and AAAA, /etc/hosts included). */
export type Resolver = (hostname: string) => Promise<Address[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** An address range (a.b.c.d/n, x::/n, or one address): what an operator allows besides public addresses. */
export interface AddressRange {
  family: 4 | 6;
  bytes: Uint8Array;
  bits: number;
}

const v4Bytes = (value: number) =>
  new Uint8Array([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);

/** Reads "10.0.0.0/8", "fd00::/8", "127.0.0.1" (a /32) or "::1" (a /128); null when it is none. Only dotted IPv4. */
export function parseRange(text: string): AddressRange | null {
  const [address, bitsText, extra] = text.trim().split("/");
  if (extra !== undefined || !address) return null;
  let family: 4 | 6;
  let bytes: Uint8Array;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) {
    const value = parseIPv4(address.replace(/\b0+(\d)/g, "$1"));
    if (value === null) return null;
    family = 4;
    bytes = v4Bytes(value);
  } else {
    const v6 = parseIPv6(address);
    if (!v6) return null;
    family = 6;
    bytes = v6;
  }
  const max = family === 4 ? 32 : 128;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return null;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (bits > max) return null;
  return { family, bytes, bits };
}

function inRange(bytes: Uint8Array, range: AddressRange): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (range.bytes[i] & mask)) return false;
  }
  return true;
}

/** Whether an address (text, as resolved or literal) lies in one of the ranges (IPv4-mapped IPv6 as its IPv4). */
export function inRanges(address: string, ranges: readonly AddressRange[]): boolean {
  const v4 = parseIPv4(address);
  let bytes: Uint8Array | null = v4 === null ? null : v4Bytes(v4);
  if (!bytes) {
    const v6 = parseIPv6(address);
    if (!v6) return false;
    const mapped = v6.subarray(0, 10).every((x) => x === 0) && v6[10] === 0xff && v6[11] === 0xff;
    bytes = mapped ? v6.slice(12) : v6;
  }
  return ranges.some((r) => inRange(bytes!, r));
}

export interface AddressPolicy {
  /**
   * WEBHOOKS_ALLOW_PRIVATE: true = every address is allowed (a home lab delivering to local apps);
   * a list of ranges = public addresses and those ranges (e.g. the home network, not 169.254.169.254).
   */
  allowPrivate: boolean | readonly AddressRange[];
  /** Host name resolution (tests may substitute one); the system's by default. */
  resolve?: Resolver;
}

export type TargetCheck =
  | { ok: true; addresses: Address[] }
  | { ok: false; reason: "unsupported" | "not resolvable" | "private address"; detail: string };

/**
 * Whether a URL may be requested under the policy: http(s) only; its host resolved (a literal is
 * its own address) and every address public — unless the policy allows private addresses. The
 * answer carries the checked addresses, which the request must connect to (no second lookup).
 */
export async function checkTarget(url: URL, policy: AddressPolicy): Promise<TargetCheck> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: "unsupported", detail: `scheme ${url.protocol} is not http or https` };
  }
  const hostname = url.hostname.replace(/\.$/, "").toLowerCase();
  let addresses: Address[];
  const literal = literalAddress(hostname);
  if (literal) {
    addresses = [literal];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(hostname);
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { ok: false, reason: "not resolvable", detail: `${hostname} does not resolve${code ? ` (${code})` : ""}` };
    }
    if (addresses.length === 0) return { ok: false, reason: "not resolvable", detail: `${hostname} has no address` };
  }
  if (policy.allowPrivate === true) return { ok: true, addresses };
  const allowed = policy.allowPrivate === false ? [] : policy.allowPrivate;
  for (const a of addresses) {
    const kind = classifyAddress(a.address);
    if (kind !== "public" && !inRanges(a.address, allowed)) {
      return {
        ok: false,
        reason: "private address",
        detail: `${hostname} is ${a.address} (${kind ?? "not an address"})`,
      };
    }
  }
  return { ok: true, addresses };
}
