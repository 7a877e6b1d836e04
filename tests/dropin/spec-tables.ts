import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The API contract read as data: the Markdown of docs/spec/api-v3.md (the project's copy of
 * ../shared/spec/api-v3.md, identical to it: tests/dropin/spec-contract.test.ts) split into its
 * sections, tables and "Fields: a (type, notes), …" paragraphs. Nothing here knows a route or a
 * field: every name, type and rule comes from the spec's text, and each keeps the line it was read
 * from, so a failing check quotes the row it enforces.
 */

export const SPEC_PATH = resolve(import.meta.dirname!, "../../docs/spec/api-v3.md");
export const SHARED_SPEC_PATH = resolve(import.meta.dirname!, "../../../shared/spec/api-v3.md");

export interface Section {
  /** The heading's text ("Activity", "Segment effort (summary)"). */
  heading: string;
  /** The heading of the section it is in ("Resources and their fields", "Endpoints"). */
  parent: string;
  tables: Table[];
  /** Paragraphs (lines of text outside tables), each with its line number. */
  paragraphs: { text: string; line: number }[];
}

export interface Table {
  header: string[];
  rows: Row[];
}

export interface Row {
  cells: string[];
  /** The row as the spec writes it, for messages. */
  text: string;
  line: number;
}

/** A field of a representation: one name of a row (rows may name several: "name, description"). */
export interface Field {
  name: string;
  type: string;
  notes: string;
  /** Where it was read: "spec line 62: | distance | float | meters |". */
  source: string;
}

export function readSpec(path = SPEC_PATH): { text: string; sections: Section[] } {
  const text = readFileSync(path, "utf8");
  const sections: Section[] = [];
  let top = "";
  let current: Section = { heading: "", parent: "", tables: [], paragraphs: [] };
  sections.push(current);
  let table: Table | null = null;
  text.split("\n").forEach((line, i) => {
    const heading = /^(#{2,3}) (.*)$/.exec(line);
    if (heading) {
      table = null;
      if (heading[1] === "##") top = heading[2];
      current = { heading: heading[2], parent: heading[1] === "##" ? "" : top, tables: [], paragraphs: [] };
      sections.push(current);
      return;
    }
    if (line.startsWith("|")) {
      const cells = splitRow(line);
      if (!table) {
        table = { header: cells, rows: [] };
        current.tables.push(table);
      } else if (!cells.every((c) => /^:?-+:?$/.test(c))) {
        table.rows.push({ cells, text: line, line: i + 1 });
      }
      return;
    }
    table = null;
    if (line.trim()) current.paragraphs.push({ text: line.trim(), line: i + 1 });
  });
  return { text, sections };
}

function splitRow(line: string): string[] {
  return line.replace(/^\|/, "").replace(/\|\s*$/, "").split("|").map((c) => c.trim());
}

export function section(spec: { sections: Section[] }, heading: string, parent?: string): Section {
  const found = spec.sections.find((s) => s.heading === heading && (parent === undefined || s.parent === parent));
  if (!found) throw new Error(`the spec has no section "${heading}"`);
  return found;
}

/** The paragraph of a section that holds `prefix` (at its start or after a sentence): its text after the prefix. */
export function paragraph(s: Section, prefix: string): { rest: string; line: number; text: string } {
  const found = s.paragraphs.find((p) => p.text.startsWith(prefix)) ??
    s.paragraphs.find((p) => p.text.includes(`. ${prefix}`));
  if (!found) throw new Error(`the spec's section "${s.heading}" has no paragraph with "${prefix}"`);
  return {
    rest: found.text.slice(found.text.indexOf(prefix) + prefix.length).trim(),
    line: found.line,
    text: found.text,
  };
}

/** Splits at commas outside parentheses and brackets. */
export function topLevelSplit(text: string, separator = ","): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(" || ch === "[") depth++;
    else if (ch === ")" || ch === "]") depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      out.push(text.slice(start, i));
      start = i + separator.length;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter(Boolean);
}

/** The fields of a "Field | Type | Notes" table (or "Field | Type | Representations | Notes"). */
export function tableFields(table: Table): (Field & { representations?: string[] })[] {
  const col = (name: string) => table.header.findIndex((h) => h.toLowerCase() === name);
  const [f, t, n, r] = [col("field"), col("type"), col("notes"), col("representations")];
  if (f < 0 || t < 0) throw new Error(`not a field table: ${table.header.join(" | ")}`);
  return table.rows.flatMap((row) =>
    row.cells[f].split(",").map((name) => ({
      name: name.trim(),
      type: row.cells[t],
      notes: n >= 0 ? row.cells[n] : "",
      representations: r >= 0 ? row.cells[r].split(",").map((x) => x.trim()) : undefined,
      source: `spec line ${row.line}: ${row.text}`,
    }))
  );
}

/**
 * The fields of a paragraph list: "average_speed (float, m/s), distance (float, m), start_index,
 * end_index (integer), …" — names without parentheses take the type of the next one that has them.
 */
export function listFields(list: string, line: number, text: string): Field[] {
  const out: Field[] = [];
  const pending: string[] = [];
  // The list ends at its first full stop outside parentheses ("…, pace_zone (integer; …). Laps are …").
  let depth = 0;
  let end = list.length;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === "(" || list[i] === "[") depth++;
    else if (list[i] === ")" || list[i] === "]") depth--;
    else if (depth === 0 && list[i] === "." && (i + 1 === list.length || list[i + 1] === " ")) {
      end = i;
      break;
    }
  }
  for (const item of topLevelSplit(list.slice(0, end))) {
    const m = /^([a-z_][a-z0-9_]*)\s*(?:\((.*)\))?$/s.exec(item);
    if (!m) continue;
    if (m[2] === undefined) {
      pending.push(m[1]);
      continue;
    }
    const [type, ...notes] = topLevelSplit(m[2], ";").flatMap((part, i) => (i === 0 ? topLevelSplit(part) : [part]));
    for (const name of [...pending.splice(0), m[1]]) {
      out.push({ name, type: type ?? "", notes: notes.join(", "), source: `spec line ${line}: ${text}` });
    }
  }
  for (const name of pending) out.push({ name, type: "", notes: "", source: `spec line ${line}: ${text}` });
  return out;
}

/** The names of a plain list ("calories, description, gear, …, photos"), "and" allowed before the last. */
export function nameList(list: string): string[] {
  return topLevelSplit(list.replace(/\.\s*$/, "").replace(/ and /g, ", "))
    .map((s) => s.replace(/\s*\(.*\)$/, "").trim())
    .filter((s) => /^[a-z_][a-z0-9_]*$/.test(s));
}

/** An endpoint row of the Endpoints tables. */
export interface Endpoint {
  method: string;
  path: string;
  input: string;
  output: string;
  family: string;
  source: string;
}

export function endpoints(spec: { sections: Section[] }): Endpoint[] {
  return spec.sections.filter((s) => s.parent === "Endpoints").flatMap((s) =>
    s.tables.flatMap((t) => {
      const col = (name: string) => t.header.findIndex((h) => h.toLowerCase() === name);
      return t.rows.map((row) => ({
        method: row.cells[col("method")],
        path: row.cells[col("path")],
        input: row.cells[col("input")],
        // A row may leave its Output cell out ("path only is listed; parameters and output: not shown").
        output: row.cells[col("output")] ?? "",
        family: s.heading,
        source: `spec line ${row.line}: ${row.text}`,
      }));
    })
  );
}

/** One parameter rule of an endpoint's Input cell. */
export interface Parameter {
  name: string;
  /** integer, float, boolean, string, datetime, or "" when the cell names none. */
  type: string;
  required: boolean;
  /** Values the spec lists ("one of …", "'M' or 'F'"). */
  values?: string[];
  max?: number;
  /** The part of the Input cell it was read from. */
  text: string;
}

const TYPES = ["integer", "float", "boolean", "string", "datetime"];
const PREFIX = /^(write\.?|query:|multipart\/form-data\.)\s*/;

/** Text with its parenthesized parts removed (for looking at a part's own words). */
const outsideParentheses = (text: string) => text.replace(/\([^()]*\)/g, "");

/**
 * The parameters of an Input cell: its parts separated by ";" (and "write." / "query:" prefixes
 * dropped), each "name[, name…] [type] [required|optional] [one of …|'a' or 'b'] [default N] [max N]",
 * or several "name type …" separated by commas. Parts that state no parameter (prose, "none",
 * "path only is listed") give none; "X, Y and Z cannot be combined" comes out of `exclusiveGroups`.
 */
export function parameters(input: string): Parameter[] {
  const out: Parameter[] = [];
  const allOptional = /\ball optional\b/.test(input);
  const parts = topLevelSplit(input, ";").flatMap((p) => topLevelSplit(p, ". "));
  for (const raw of parts) {
    let part = raw.trim();
    while (PREFIX.test(part)) part = part.replace(PREFIX, "");
    if (!part || part === "all optional" || /cannot be combined|must be sent together/.test(part)) continue;
    const listed = /one of|case insensitive:|'/.test(outsideParentheses(part));
    // "page, per_page integer optional": bare names take the rule of the next named one.
    const chunks = listed ? [part] : topLevelSplit(part);
    const pending: string[] = [];
    for (const chunk of chunks) {
      const m = /^([a-z_][a-z0-9_]*)(?:\s+(.*))?$/s.exec(chunk);
      if (!m) {
        pending.length = 0;
        continue;
      }
      const rest = m[2] ?? "";
      if (rest === "") {
        pending.push(m[1]);
        continue;
      }
      const firstWord = rest.split(/[\s(,:]/)[0];
      if (!TYPES.includes(firstWord) && !/^(required|optional|one of|'|default)/.test(rest)) {
        pending.length = 0;
        continue;
      }
      for (const name of [...pending.splice(0), m[1]]) out.push(rule(name, rest, chunk, allOptional, part));
    }
    // Names with no rule of their own ("…; page, per_page"): listed, optional, untyped.
    for (const name of pending) out.push(rule(name, "", part, allOptional, part));
  }
  return out;
}

function rule(name: string, rest: string, text: string, allOptional: boolean, part: string): Parameter {
  const type = TYPES.find((t) => new RegExp(`^${t}\\b`).test(rest)) ?? "";
  const oneOf = /one of (?:\(pounds\) )?(.*)$/.exec(rest);
  let values: string[] | undefined;
  if (oneOf) {
    values = oneOf[1].replace(/\(kilograms\)\s*/g, "").replace(/\s+or\s+/g, ", ").split(",").map((v) => v.trim())
      .map((v) => v.replace(/^'|'$/g, "")).filter((v) => /^[\w.]+$/.test(v));
  } else if (/'[^']+'(,\s*'[^']+')*,?\s+or\s+'[^']+'/.test(rest)) {
    values = [...rest.matchAll(/'([^']+)'/g)].map((x) => x[1]);
  } else if (/case insensitive: /.test(rest)) {
    values = rest.split("case insensitive: ")[1].split("(")[0].split(",").map((v) => v.trim()).filter(Boolean);
  }
  const max = /\bmax (\d+)/.exec(rest);
  return {
    name,
    type,
    // "required when filter is club" is conditional; "required, always true (without it only … are
    // returned)" says what happens without it, so it is not refused.
    required: /\brequired\b(?! when)/.test(outsideParentheses(rest)) && !/\bwithout it\b/.test(part) && !allOptional,
    values: values ? [...new Set(values)] : undefined,
    max: max ? Number(max[1]) : undefined,
    text,
  };
}

/** "before, after and page cannot be combined" → [["before", "after", "page"]]. */
export function exclusiveGroups(input: string): string[][] {
  return [...input.matchAll(/([a-z_]+(?:, [a-z_]+)*(?:,? and [a-z_]+)?) cannot be combined/g)].map((m) =>
    m[1].replace(/,? and /, ", ").split(", ")
  );
}
