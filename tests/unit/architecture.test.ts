import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The shape of the code (docs/architecture.md), checked with the TypeScript parser:
 * - imports go one way: shared ← events ← projections ← server; desktop imports only shared/;
 * - only projections/ name a read-model table in SQL (a string or template literal);
 * - only events/ (the store and the `handleCommand` seam) call `store.append`;
 * - no side-effect imports (`import "./x.ts"`) outside the event catalogue's index.
 * Files not yet moved are listed explicitly below; the lists only shrink (an entry that no longer
 * offends fails the test, so it must be removed).
 */
const ROOT = resolve(import.meta.dirname!, "../..");
const LAYERS = ["shared", "events", "projections", "server", "desktop"] as const;
type Layer = (typeof LAYERS)[number];
const MAY_IMPORT: Record<Layer, Layer[]> = {
  shared: ["shared"],
  events: ["shared", "events"],
  projections: ["shared", "events", "projections"],
  server: ["shared", "events", "projections", "server"],
  desktop: ["shared", "desktop"],
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name.startsWith(".")) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : /\.tsx?$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [path] : [];
  });
}

const sources = LAYERS.flatMap((layer) => files(join(ROOT, layer))).map((path) => {
  const name = relative(ROOT, path).split("\\").join("/");
  return { name, path, file: ts.createSourceFile(name, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true) };
});

function layerOf(name: string): Layer | undefined {
  return LAYERS.find((l) => name === l || name.startsWith(`${l}/`));
}

function walk(node: ts.Node, visit: (node: ts.Node) => void) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** `file:line: text` of a node. */
function where(file: ts.SourceFile, node: ts.Node): string {
  const { line } = file.getLineAndCharacterOfPosition(node.getStart());
  return `${file.fileName}:${line + 1}: ${node.getText().replace(/\s+/g, " ").slice(0, 90)}`;
}

/** Imports (static, dynamic, export-from) crossing the layers the wrong way. */
export function importViolations(file: ts.SourceFile): string[] {
  const from = layerOf(file.fileName);
  if (!from) return [];
  const found: string[] = [];
  const check = (node: ts.Node, specifier: string) => {
    if (!specifier.startsWith(".")) return;
    const target = relative(ROOT, resolve(ROOT, dirname(file.fileName), specifier)).split("\\").join("/");
    const to = layerOf(target);
    if (!to && !target.startsWith("..")) return found.push(where(file, node)), undefined;
    if (to && !MAY_IMPORT[from].includes(to)) found.push(where(file, node));
    if (!to && target.startsWith("..")) found.push(where(file, node));
  };
  walk(file, (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      check(node, node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      check(node, node.arguments[0].text);
    }
  });
  return found;
}

/** Every read-model table, read from the projections' DDL. */
const TABLES = [...new Set(
  files(join(ROOT, "projections")).flatMap((path) =>
    [...readFileSync(path, "utf8").matchAll(/create table if not exists\s+([a-z_][a-z0-9_]*)/gi)].map((m) => m[1].toLowerCase())
  ),
)].sort();

/** String and template literals whose SQL names a read-model table (from/join/into/update/table). */
export function sqlTableViolations(file: ts.SourceFile, tables: readonly string[] = TABLES): string[] {
  const pattern = new RegExp(`\\b(from|join|into|update|table(?: if (?:not )?exists)?)\\s+(?:rm\\.|"?\\$\\{[^}]*\\}"?\\.)?"?(${tables.join("|")})\\b`, "i");
  // Prose ("hidden from others and from heatmaps") is not SQL: a literal counts when it also has SQL's words.
  const sql = /\b(select|where|join|insert|update|delete|values|set|order by|group by|returning|using|on conflict|limit|create)\b/i;
  const found: string[] = [];
  walk(file, (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      if (ts.isTemplateExpression(node.parent) || ts.isTemplateSpan(node.parent)) return;
      const text = node.getText();
      if (pattern.test(text) && sql.test(text)) found.push(where(file, node));
    }
  });
  return found;
}

/** Calls of `<x>.append(…)` / `<x>.appendMany(…)` on an event store (`store.append`, `platform.store.append`). */
export function appendViolations(file: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && /^append(Many)?$/.test(node.expression.name.text)) {
      const target = node.expression.expression.getText();
      if (/(^|\.)store$/.test(target)) found.push(where(file, node));
    }
  });
  return found;
}

/** `import "./x.ts"` for its side effects: registration must be explicit. */
export function sideEffectImports(file: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (ts.isImportDeclaration(node) && !node.importClause) found.push(where(file, node));
  });
  return found;
}

const offendingFiles = (lines: string[]) => [...new Set(lines.map((l) => l.slice(0, l.indexOf(":"))))].sort();

describe("architecture", () => {
  it("the checks see what they look for and only that", () => {
    const parse = (name: string, text: string) => ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    expect(importViolations(parse("events/x.ts", `import { a } from "../server/app.ts"; import "../shared/json.ts";`))).toHaveLength(1);
    expect(importViolations(parse("projections/x/y.ts", `export { a } from "../../server/app.ts"; const m = import("../../events/store.ts");`))).toHaveLength(1);
    expect(importViolations(parse("desktop/core/x.ts", `import { a } from "../../events/types.ts"; import { b } from "../../shared/json.ts";`))).toHaveLength(1);
    expect(importViolations(parse("server/x.ts", `import { a } from "../projections/index.ts"; import { z } from "zod";`))).toEqual([]);
    expect(sqlTableViolations(parse("server/x.ts", "// select * from activities\nq(`select id from activities where x`); q('delete from rm.follows'); q(`select 1 from t join ${s}.gear g`);"), ["activities", "follows", "gear"])).toHaveLength(3);
    expect(sqlTableViolations(parse("server/x.ts", "const s = 'activities'; q(`select id from events`); const t = 'from the athletes'; const u = 'hidden from others and from activities';"), ["activities", "athletes"])).toEqual([]);
    expect(appendViolations(parse("server/x.ts", "await platform.store.append(s, 0, []); store.appendMany([]); list.append(x);"))).toHaveLength(2);
    expect(sideEffectImports(parse("server/x.ts", `import "./y.ts"; import { a } from "./z.ts"; import type { B } from "./b.ts";`))).toHaveLength(1);
    expect(TABLES).toContain("activities");
    expect(TABLES).toContain("segment_efforts");
    expect(TABLES.length).toBeGreaterThan(30);
  });

  it("imports go one way: shared ← events ← projections ← server; desktop imports only shared/", () => {
    expect(sources.flatMap((s) => importViolations(s.file))).toEqual([]);
  });

  it("only projections/ name read-model tables in SQL (no exceptions)", () => {
    const lines = sources.filter((s) => !s.name.startsWith("projections/")).flatMap((s) => sqlTableViolations(s.file));
    expect(offendingFiles(lines), lines.join("\n")).toEqual([]);
  });

  it("only events/ (the store and the handleCommand seam) call store.append (no exceptions)", () => {
    const lines = sources.filter((s) => !s.name.startsWith("events/")).flatMap((s) => appendViolations(s.file));
    expect(offendingFiles(lines), lines.join("\n")).toEqual([]);
  });

  it("registration is explicit: no side-effect imports outside the event catalogue's index", () => {
    const lines = sources.filter((s) => s.name !== "events/index.ts").flatMap((s) => sideEffectImports(s.file));
    expect(lines).toEqual([]);
  });
});
