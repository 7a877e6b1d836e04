/**
 * JSON with exact 64-bit integers: a bigint is written as bare digits (not a quoted string),
 * so ids beyond 2^53 (segment efforts) stay exact end to end.
 */
export function toJson(value: unknown, indent?: number): string {
  const marks: string[] = [];
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v === "bigint") {
        marks.push(v.toString());
        return `\u0000big${marks.length - 1}\u0000`;
      }
      return v;
    },
    indent,
  );
  if (marks.length === 0) return text;
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, i) => marks[Number(i)]);
}

/** Parses JSON keeping integers beyond 2^53 exact as bigint. */
export function parseJsonExact(text: string): unknown {
  const big = /(?<=[:\[,]\s*)-?\d{16,}(?=\s*[,\]}])/g;
  const marked = text.replace(big, (digits) => {
    const n = BigInt(digits);
    return n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER)
      ? `"\u0000big${digits}"`
      : digits;
  });
  return JSON.parse(marked, (_k, v) =>
    typeof v === "string" && v.startsWith("\u0000big") ? BigInt(v.slice(4)) : v);
}

/** A number when it fits exactly, else a bigint. */
export function exactInteger(value: bigint | number | string): number | bigint {
  const big = typeof value === "bigint" ? value : BigInt(value);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big;
}
