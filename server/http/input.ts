import { z } from "zod";
import { MAX_EPOCH, MAX_YEAR, MIN_EPOCH, MIN_YEAR } from "../../shared/date-range.ts";
import { ApiError } from "./errors.ts";

const INT64_MAX = (1n << 63n) - 1n;

/** A path or query id: digits only, within 64 bits; a number when exact, else a bigint. */
export const zId = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const text = String(value).trim();
    if (!/^\d{1,19}$/.test(text) || BigInt(text) > INT64_MAX || BigInt(text) === 0n) {
      ctx.addIssue({ code: "custom", message: "not a positive 64-bit integer id" });
      return z.NEVER;
    }
    const big = BigInt(text);
    return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  });

/** A 32/53-bit id that must be a plain number (athletes, activities, clubs…). */
export const zNumId = zId.transform((v, ctx) => {
  if (typeof v !== "number") {
    ctx.addIssue({ code: "custom", message: "id out of range" });
    return z.NEVER;
  }
  return v;
});

/** An integer sent as a form field, query parameter or JSON number. */
export const zInt = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = String(value).trim();
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    ctx.addIssue({ code: "custom", message: "not an integer" });
    return z.NEVER;
  }
  return Number(text);
});

/**
 * Epoch seconds of a date (before/after, heatmap windows…): an integer within years
 * ${MIN_YEAR}–${MAX_YEAR}, so no stored or compared value can overflow a date later.
 */
export const zEpoch = zInt.pipe(
  z.number().int().min(MIN_EPOCH, `a date within ${MIN_YEAR}–${MAX_YEAR}`).max(
    MAX_EPOCH,
    `a date within ${MIN_YEAR}–${MAX_YEAR}`,
  ),
);

/** A float sent as a form field, query parameter or JSON number. */
export const zFloat = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const n = typeof value === "number" ? value : Number(String(value).trim());
  if (String(value).trim() === "" || !Number.isFinite(n)) {
    ctx.addIssue({ code: "custom", message: "not a number" });
    return z.NEVER;
  }
  return n;
});

/** A boolean: true/false, 1/0 (forms send strings). */
export const zBool = z.union([z.string(), z.boolean(), z.number()]).transform((value, ctx) => {
  const text = String(value).trim().toLowerCase();
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  ctx.addIssue({ code: "custom", message: "not a boolean" });
  return z.NEVER;
});

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 200;

/**
 * The last page any list may be asked for: page × per_page stays far inside every integer an
 * offset passes through (JavaScript's safe integers, SQL's int8), so no extreme page is a 500.
 */
export const MAX_PAGE = 1_000_000;

/**
 * page (1-based, at most ${MAX_PAGE}) and per_page (at most 200): the one parser of paging for
 * every list route; anything else (0, negative, non-integer, beyond the bounds) is a 400 naming it.
 */
export const zPaging = {
  page: zInt.pipe(z.number().int().min(1).max(MAX_PAGE)).optional(),
  per_page: zInt.pipe(z.number().int().min(1).max(MAX_PER_PAGE)).optional(),
};

export interface Paging {
  page: number;
  perPage: number;
  offset: number;
}

export function paging(query: { page?: number; per_page?: number }, defaultPerPage = DEFAULT_PER_PAGE): Paging {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? defaultPerPage;
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Turns a zod failure into the documented 400 body, one triple per bad field. */
export function zodToApiError(error: z.ZodError, resource: string, input: unknown): ApiError {
  const seen = new Set<string>();
  const errors = [];
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.map(String).join(".") : "body";
    if (seen.has(field)) continue;
    seen.add(field);
    let value: unknown = input;
    for (const key of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
    errors.push({ resource, field, code: value === undefined || value === "" ? "missing" : "invalid" });
  }
  return new ApiError(400, "Bad Request", errors);
}

/** U+0000 and unpaired surrogates: text PostgreSQL cannot store (text, jsonb), so never valid input. */
// deno-lint-ignore no-control-regex -- U+0000 is what it looks for: PostgreSQL cannot store it
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Paths of input strings (and uploaded file names) holding unstorable characters. */
export function unstorableFields(value: unknown, path: string[] = [], out: string[] = [], depth = 0): string[] {
  if (typeof value === "string") {
    if (UNSTORABLE.test(value)) out.push(path.join(".") || "body");
  } else if (typeof File !== "undefined" && value instanceof File) {
    if (UNSTORABLE.test(value.name)) out.push(path.join(".") || "body");
  } else if (value && typeof value === "object" && depth < 32) {
    for (const [key, v] of Object.entries(value)) unstorableFields(v, [...path, key], out, depth + 1);
  }
  return out;
}

/** Parses input with a schema or throws the documented 400 (also for text with U+0000 or lone surrogates). */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown, resource: string): T {
  const unstorable = unstorableFields(input);
  if (unstorable.length) {
    throw new ApiError(400, "Bad Request", unstorable.map((field) => ({ resource, field, code: "invalid" })));
  }
  const result = schema.safeParse(input);
  if (!result.success) throw zodToApiError(result.error, resource, input);
  return result.data;
}
