/** JSON.rawJSON (V8 11.4+: Deno, Node 21+): a bigint written as its digits by the replacer itself. */
const rawJSON = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;

/**
 * JSON with exact 64-bit integers: a bigint is written as bare digits (not a quoted string),
 * so ids beyond 2^53 (segment efforts) stay exact end to end.
 */
export function toJson(value: unknown, indent?: number): string {
  // Most values hold no bigint: JSON.stringify alone (a replacer costs a call per value), which
  // throws a TypeError at the first bigint it meets — built without a stack trace (capturing one
  // was 30 µs of a leaderboard's 1.2 ms: every board holds effort ids); then a pass that writes them.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return JSON.stringify(value, undefined, indent);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  } finally {
    Error.stackTraceLimit = limit;
  }
  return rawJSON ? JSON.stringify(value, bigintRaw, indent) : toJsonMarked(value, indent);
}

function bigintRaw(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? rawJSON!(v.toString()) : v;
}

/**
 * Without JSON.rawJSON (Node 20): each bigint replaced by a marker string, the markers then
 * replaced by the digits (a leaderboard's 14 entries on Deno: 45 µs this way, 25 µs with rawJSON).
 */
export function toJsonMarked(value: unknown, indent?: number): string {
  const marks: string[] = [];
  // A per-call nonce, so no string a user wrote can pose as a marker.
  const nonce = Math.random().toString(36).slice(2, 10);
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v === "bigint") {
        marks.push(v.toString());
        return `\u0000${nonce}:${marks.length - 1}\u0000`;
      }
      return v;
    },
    indent,
  );
  if (marks.length === 0) return text;
  return text.replace(new RegExp(`"\\\\u0000${nonce}:(\\d+)\\\\u0000"`, "g"), (_m, i) => marks[Number(i)]);
}

const MARK = "\u0000big";

/**
 * Sixteen digits in a row not continuing a number's fraction or digits: where an integer beyond
 * 2^53 (16 digits or more) could start. Text without any (almost every stored document: its
 * floats' long runs follow a ".") is JSON.parse'd as it is; the scan below walks the text in
 * JavaScript a character at a time (a GET's facts: 32 µs of 1.2 ms under load).
 */
const MAYBE_LONG_INTEGER = /(?<![.\d])\d{16}/;

/** Parses JSON keeping integers beyond 2^53 exact as bigint (strings are never touched). */
export function parseJsonExact(text: string): unknown {
  if (!MAYBE_LONG_INTEGER.test(text)) return JSON.parse(text);
  let out = "";
  let last = 0;
  let i = 0;
  let marked = false;
  const n = text.length;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) {
      i++;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 92 /* \ */) i += 2;
        else if (c === 34) break;
        else i++;
      }
      i++;
      continue;
    }
    if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      const start = i;
      i++;
      while (i < n) {
        const c = text.charCodeAt(i);
        if ((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45) i++;
        else break;
      }
      const token = text.slice(start, i);
      if (token.length >= 16 && /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += text.slice(last, start) + `"\\u0000big${token}"`;
        last = i;
        marked = true;
      }
      continue;
    }
    i++;
  }
  if (!marked) return JSON.parse(text);
  out += text.slice(last);
  return JSON.parse(out, (_k, v) => (typeof v === "string" && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v));
}

/** A number when it fits exactly, else a bigint. */
export function exactInteger(value: bigint | number | string): number | bigint {
  const big = typeof value === "bigint" ? value : BigInt(value);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}
