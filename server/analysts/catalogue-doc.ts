import { z } from "zod";
import type { EventCatalogue, EventDefinition } from "../../events/catalogue.ts";

/** Where the generated catalogue lives (relative to the project root). */
export const CATALOGUE_FILE = "docs/events.md";

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  additionalProperties?: JsonSchema | boolean;
};

/** A short type name: string, integer, number | null, "M" | "F", array of object, [number, number]. */
function typeName(s: JsonSchema): string {
  const union = s.anyOf ?? s.oneOf;
  if (union) return [...new Set(union.map(typeName))].join(" | ");
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.type)) return s.type.join(" | ");
  if (s.type === "array") {
    if (s.prefixItems) return `[${s.prefixItems.map(typeName).join(", ")}]`;
    return s.items ? `array of ${typeName(s.items)}` : "array";
  }
  if (s.type === "object") {
    if (!s.properties && typeof s.additionalProperties === "object") {
      return `map of ${typeName(s.additionalProperties)}`;
    }
    return "object";
  }
  if (s.type === "string" && s.format) return `string (${s.format})`;
  return s.type ?? "any";
}

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** The fields of an object schema, nested objects and arrays of objects flattened as a.b / a[].b. */
function fields(s: JsonSchema, prefix = ""): FieldRow[] {
  const rows: FieldRow[] = [];
  const required = new Set(s.required ?? []);
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push({ name: path, type: typeName(prop), required: required.has(name), description: prop.description ?? "" });
    const inner = objectPart(prop);
    if (inner?.schema.properties) rows.push(...fields(inner.schema, `${path}${inner.array ? "[]" : ""}.`));
  }
  return rows;
}

function objectPart(s: JsonSchema): { schema: JsonSchema; array: boolean } | undefined {
  const options = s.anyOf ?? s.oneOf ?? [s];
  for (const option of options) {
    if (option.type === "object" && option.properties) return { schema: option, array: false };
    if (option.type === "array" && option.items?.type === "object" && option.items.properties) {
      return { schema: option.items, array: true };
    }
  }
  return undefined;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function section(definition: EventDefinition<unknown>): string {
  const schema = z.toJSONSchema(definition.schema, { unrepresentable: "any", io: "input" }) as JsonSchema;
  const upgrades = Object.keys(definition.upcasters).map(Number).sort((a, b) => a - b);
  const lines = [
    `## ${definition.type}`,
    "",
    definition.description,
    "",
    `Schema version: **${definition.version}**` +
    (upgrades.length
      ? ` (older versions upcast when read: ${upgrades.map((v) => `v${v} → v${v + 1}`).join(", ")})`
      : ""),
    "",
    "| Field | Type | Required | Description |",
    "|---|---|---|---|",
  ];
  for (const f of fields(schema)) {
    lines.push(`| \`${f.name}\` | ${cell(f.type)} | ${f.required ? "yes" : "no"} | ${cell(f.description)} |`);
  }
  return lines.join("\n");
}

/** An event catalogue as markdown, generated from the zod schemas of its event types. */
export function eventCatalogueMarkdown(catalogue: EventCatalogue): string {
  const definitions = catalogue.definitions;
  const header = [
    "# Event catalogue",
    "",
    "<!-- Generated from the zod schemas in events/*/events.ts by `npm run docs:events`; do not edit by hand. -->",
    "",
    "Every event type of the log, its current schema version and the fields of its `data`. Events",
    "stored with an older schema version are upcast to the current shape when read (`events/catalogue.ts`).",
    "Every event also carries: `global_position`, `stream_id`, `stream_version`, `type`, `schema_version`,",
    "`metadata` (`athleteId`, `applicationId`, `requestId`, `source`) and `recorded_at` (see docs/analysts.md).",
    "",
    `${definitions.length} event types:`,
    "",
    ...definitions.map((d) => `- [${d.type}](#${d.type.toLowerCase()}) (v${d.version})`),
  ];
  return [header.join("\n"), ...definitions.map(section)].join("\n\n") + "\n";
}
