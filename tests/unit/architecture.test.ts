import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The shape of the code (docs/architecture.md), checked with the TypeScript parser and, where a
 * name must be followed through aliases, its type checker:
 * - imports go one way: shared ← events ← projections ← server; desktop imports only shared/;
 * - a table is named in SQL only by its owner: a read model by its projection's folder (and the
 *   named joins in projections/queries/), the event log's tables by events/, a server table by
 *   the folder that creates it; SQL a server file runs is written at the call, never built from
 *   a variable or with a table name spliced in;
 * - only events/ appends to the store, through whatever alias (`const s = store; s.append`,
 *   `const { append } = store`, `store["append"]`);
 * - `handleCommand` is used only by the features' `server/<feature>/commands.ts`;
 * - no `.data as` casts (events are the catalogue's discriminated union);
 * - no module-level registries: nothing is pushed into another module's list at load, and a
 *   module-level Map/Set/array that functions mutate is a listed cache, not a registry;
 * - no side-effect imports.
 * Each rule proves itself on planted violations first.
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

const nameOf = (path: string) => relative(ROOT, path).split("\\").join("/");
const paths = LAYERS.flatMap((layer) => files(join(ROOT, layer)));

/** One program over the code (not the tests): the checker resolves aliases and imports. */
const program = ts.createProgram(paths.filter((p) => !nameOf(p).startsWith("desktop/")), {
  allowImportingTsExtensions: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.ReactJSX,
  jsxImportSource: "hono/jsx",
  skipLibCheck: true,
  noResolve: false,
  types: [],
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();
const sources = paths.map((path) => {
  const name = nameOf(path);
  const file = program.getSourceFile(path) ??
    ts.createSourceFile(name, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  return { name, path, file };
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
  const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return `${nameOf(file.fileName)}:${line + 1}: ${node.getText(file).replace(/\s+/g, " ").slice(0, 90)}`;
}

const parse = (name: string, text: string) => ts.createSourceFile(join(ROOT, name), text, ts.ScriptTarget.Latest, true);

/** A planted file type-checked with the real code beside it (the program is reused, so this is quick). */
function plantTyped(name: string, text: string): { file: ts.SourceFile; checker: ts.TypeChecker } {
  const path = join(ROOT, name);
  const host = ts.createCompilerHost(program.getCompilerOptions(), true);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, create) =>
    fileName === path
      ? ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
      : program.getSourceFile(fileName) ?? read(fileName, version, onError, create);
  const planted = ts.createProgram([...program.getRootFileNames(), path], program.getCompilerOptions(), host, program);
  return { file: planted.getSourceFile(path)!, checker: planted.getTypeChecker() };
}

/** Imports (static, dynamic, export-from) crossing the layers the wrong way. */
export function importViolations(file: ts.SourceFile): string[] {
  const self = nameOf(file.fileName);
  const from = layerOf(self);
  if (!from) return [];
  const found: string[] = [];
  const check = (node: ts.Node, specifier: string) => {
    if (!specifier.startsWith(".")) return;
    const target = nameOf(resolve(ROOT, dirname(self), specifier));
    const to = layerOf(target);
    if (!to || !MAY_IMPORT[from].includes(to)) found.push(where(file, node));
  };
  walk(file, (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      check(node, node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      check(node, node.arguments[0].text);
    }
  });
  return found;
}

/** Every table the code creates, with the folder (or file) that owns it. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const s of sources) {
    if (!/^(events|projections|server)\//.test(s.name)) continue;
    for (
      const m of readFileSync(s.path, "utf8").matchAll(
        /create table if not exists\s+(?:public\.|rm\.|"?\$\{[^}]*\}"?\.)?([a-z_][a-z0-9_]*)/gi,
      )
    ) {
      const table = m[1].toLowerCase();
      const owner = s.name.startsWith("projections/")
        ? s.name.split("/").slice(0, 2).join("/") + "/"
        : s.name.startsWith("events/")
        ? "events/"
        : dirname(s.name) + "/";
      if (!owners.has(table)) owners.set(table, owner);
    }
  }
  // Created with the event store's schema (a log and its blobs are made together; erasure rewrites
  // both), read and written by the blob store: every other use of a blob goes through server/blobs.ts.
  owners.set("blobs", "events/,server/blobs.ts");
  return owners;
}
const OWNERS = tableOwners();

const WRITES =
  /\b(insert\s+into|update|delete\s+from|truncate|alter\s+table|drop\s+table|create\s+(?:unique\s+)?(?:table|index))\b/i;

/**
 * May `file` name `table` in this SQL? The owner may do anything. A read model's table may also
 * be read (never written) anywhere in projections/: queries that join read models are the read
 * side's; and projections/'s own top-level files (the runner, the list) manage every read model.
 */
function mayName(file: string, table: string, text: string, owners: ReadonlyMap<string, string>): boolean {
  const owner = owners.get(table);
  if (!owner || owner.split(",").some((o) => file === o || file.startsWith(o))) return true;
  if (!owner.startsWith("projections/") || !file.startsWith("projections/")) return false;
  if (!file.includes("/", "projections/".length)) return true;
  const write = new RegExp(
    `${WRITES.source}\\s+(?:only\\s+)?(?:if (?:not )?exists\\s+)?(?:public\\.|rm\\.|"?\\$\\{[^}]*\\}"?\\.)?"?${table}\\b`,
    "i",
  );
  return !write.test(text);
}

const SQL_WORDS =
  /\b(select|where|join|insert|update|delete|values|set|order by|group by|returning|using|on conflict|limit|create|truncate|alter)\b/i;

/** String and template literals whose SQL names a table this file may not (see `mayName`). */
export function sqlOwnerViolations(file: ts.SourceFile, owners: ReadonlyMap<string, string> = OWNERS): string[] {
  const self = nameOf(file.fileName);
  const tables = [...owners.keys()];
  const found: string[] = [];
  walk(file, (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      if (ts.isTemplateExpression(node.parent) || ts.isTemplateSpan(node.parent)) return;
      const text = node.getText(file);
      // Prose ("hidden from others and from heatmaps") is not SQL: a literal counts when it also has SQL's words.
      if (!SQL_WORDS.test(text)) return;
      const named = tables.filter((t) =>
        new RegExp(
          `\\b(?:from|join|into|update|table(?: if (?:not )?exists)?|truncate)\\s+(?:only\\s+)?(?:public\\.|rm\\.|"?\\$\\{[^}]*\\}"?\\.)?"?${t}\\b`,
          "i",
        ).test(text)
      );
      if (named.some((t) => !mayName(self, t, text, owners))) found.push(where(file, node));
    }
  });
  return found;
}

/** Is `node` a call of a database's `query`/`exec` (the Queryable interface of events/db/types.ts)? */
function isDatabaseCall(node: ts.CallExpression, typed: ts.TypeChecker | null): boolean {
  const callee = node.expression;
  if (!ts.isPropertyAccessExpression(callee) || !/^(query|exec)$/.test(callee.name.text)) return false;
  if (!typed) return /(^|\.)(db|tx|platform\.db|queryable)$/i.test(callee.expression.getText());
  const symbol = typed.getSymbolAtLocation(callee.name);
  return !!symbol?.declarations?.some((d) => nameOf(d.getSourceFile().fileName) === "events/db/types.ts");
}

/** The literal a `const` name stands for (followed through imports when typed), if it is one. */
function constLiteral(id: ts.Identifier, file: ts.SourceFile, typed: ts.TypeChecker | null): ts.Expression | undefined {
  let declaration: ts.Declaration | undefined;
  if (typed) {
    let symbol = typed.getSymbolAtLocation(id);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = typed.getAliasedSymbol(symbol);
    declaration = symbol?.valueDeclaration;
  } else {
    walk(file, (n) => {
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === id.text) declaration = n;
    });
  }
  if (!declaration || !ts.isVariableDeclaration(declaration) || !declaration.initializer) return undefined;
  if (!(ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const)) return undefined;
  return declaration.initializer;
}

/** A statement written out whole: a string or a template without substitutions (values go in as $n parameters). */
const isPlainSql = (e: ts.Node) => ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e);

/**
 * SQL a file outside events/ and projections/ runs is written where it can be read: a literal at
 * the call or a `const` literal, its values as $n parameters; never a statement assembled at run
 * time (a template with substitutions: a spliced table, a where clause, a shared column list).
 */
export function builtSqlViolations(file: ts.SourceFile, typed: ts.TypeChecker | null = checker): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (!ts.isCallExpression(node) || !isDatabaseCall(node, typed)) return;
    let sql: ts.Node | undefined = node.arguments[0];
    while (sql && ts.isParenthesizedExpression(sql)) sql = sql.expression;
    if (!sql) return;
    if (isPlainSql(sql)) return;
    if (ts.isIdentifier(sql)) {
      const literal = constLiteral(sql, file, typed);
      if (literal && isPlainSql(literal)) return;
    }
    found.push(where(file, node));
  });
  return found;
}

/** Does `node` name the store's append (`EventStore.append`/`appendMany`), through any alias? */
function namesStoreAppend(node: ts.Node, typed: ts.TypeChecker): boolean {
  let name: ts.Node | undefined;
  if (ts.isPropertyAccessExpression(node)) name = node.name;
  else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
    name = node.argumentExpression;
  } else if (ts.isBindingElement(node)) name = node.propertyName ?? node.name;
  if (!name || !/^append(Many)?$/.test(name.getText().replace(/["'`]/g, ""))) return false;
  const symbol = ts.isBindingElement(node)
    ? typed.getTypeAtLocation(node.parent).getProperty(name.getText())
    : ts.isElementAccessExpression(node)
    ? typed.getTypeAtLocation(node.expression).getProperty(name.getText().replace(/["'`]/g, ""))
    : typed.getSymbolAtLocation(name);
  return !!symbol?.declarations?.some((d) => nameOf(d.getSourceFile().fileName) === "events/store.ts");
}

/** Appends to the event store outside events/ (the store and the handleCommand seam). */
export function appendViolations(file: ts.SourceFile, typed: ts.TypeChecker = checker): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (namesStoreAppend(node, typed)) found.push(where(file, node));
  });
  return found;
}

/** `server/<feature>/commands.ts`: the only files outside events/ that may use handleCommand. */
export const isCommandsFile = (name: string) => /^server\/[a-z0-9-]+\/commands\.ts$/.test(name);

/** Uses of `handleCommand` (imported, re-exported, or reached through a namespace import). */
export function handleCommandUses(file: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (
      (ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) &&
      (node.propertyName ?? node.name).text === "handleCommand"
    ) {
      found.push(where(file, node));
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === "handleCommand") found.push(where(file, node));
  });
  return found;
}

/** `x.data as T` / `x?.data as T` / `<T>x.data`: a cast where the catalogue's union should narrow. */
export function dataCasts(file: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (!ts.isAsExpression(node) && !ts.isTypeAssertionExpression(node)) return;
    if (ts.isAsExpression(node) && node.type.kind === ts.SyntaxKind.UnknownKeyword) return;
    let inner: ts.Expression = node.expression;
    while (ts.isParenthesizedExpression(inner) || ts.isNonNullExpression(inner)) inner = inner.expression;
    if (ts.isPropertyAccessExpression(inner) && inner.name.text === "data") found.push(where(file, node));
  });
  return found;
}

const MUTATORS = /^(push|unshift|splice|set|add|delete|clear|assign)$/;

/** Statements run at module load that mutate what another module exports (a load-time registration). */
export function loadTimePushes(file: ts.SourceFile): string[] {
  const imported = new Set<string>();
  for (const statement of file.statements) {
    // The project's own modules (a relative specifier): the runtime's objects (`process`) are not registries.
    if (
      ts.isImportDeclaration(statement) && statement.importClause && !statement.importClause.isTypeOnly &&
      ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text.startsWith(".")
    ) {
      const clause = statement.importClause;
      if (clause.name) imported.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) { for (const e of bindings.elements) imported.add(e.name.text); }
      if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
    }
  }
  const found: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isExpressionStatement(statement)) continue;
    walk(statement.expression, (node) => {
      if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return;
      const root = (e: ts.Expression): string => {
        while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) e = e.expression;
        return ts.isIdentifier(e) ? e.text : "";
      };
      if (
        ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
        MUTATORS.test(node.expression.name.text)
      ) {
        const target = node.expression.name.text === "assign" && ts.isIdentifier(node.expression.expression) &&
            node.expression.expression.text === "Object"
          ? (node.arguments[0] && root(node.arguments[0]))
          : root(node.expression.expression);
        if (target && imported.has(target)) found.push(where(file, statement));
      } else if (
        ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        imported.has(root(node.left))
      ) {
        found.push(where(file, statement));
      }
    });
  }
  return found;
}

/**
 * Module-level collections (`new Map`, `new Set`, `[]`) that code mutates: each must be a listed
 * cache or per-process hand-off, never a registry other modules fill. WeakMaps keyed by a
 * platform or database are per-instance state, not module registries, and are not counted.
 */
export function mutatedModuleCollections(file: ts.SourceFile): string[] {
  const collections = new Map<string, ts.Node>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || !d.initializer) continue;
      const init = d.initializer;
      const isCollection = ts.isArrayLiteralExpression(init) ||
        (ts.isNewExpression(init) && ts.isIdentifier(init.expression) && /^(Map|Set)$/.test(init.expression.text));
      if (isCollection) collections.set(d.name.text, d);
    }
  }
  const mutated = new Set<string>();
  walk(file, (node) => {
    if (
      ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
      MUTATORS.test(node.expression.name.text) &&
      ts.isIdentifier(node.expression.expression) && collections.has(node.expression.expression.text)
    ) {
      mutated.add(node.expression.expression.text);
    }
  });
  return [...mutated].map((name) => `${nameOf(file.fileName)}: ${name}`);
}

/**
 * The module-level collections that are caches or hand-offs within one process (why each is not
 * a registry). The list only shrinks: an entry that no longer matches fails the test.
 */
const CACHES: Record<string, string> = {
  "server/web/heatmaps.ts: assetCache": "static viewer assets read once from disk",
  "server/web/app/index.ts: cache": "static page assets read once from disk",
  "server/web/docs.ts: cache": "static docs assets read once from disk",
  "server/web/app/token.ts: minting": "in-flight page-token mints, so concurrent page loads share one",
  "server/web/account.tsx: dummyHashes":
    "one dummy password hash per cost, so unknown e-mails cost as much as wrong passwords",
  "server/workers/runtime.ts: nodeBundles": "worker bundles built once per process (Node only)",
  "server/uploads/athlete-lock.ts: tails": "per-athlete queue of duplicate checks within this process",
  "server/uploads/originals.ts: received":
    "hand-off of just-received bytes from submission to the job in the same process",
  "server/heatmaps/build.ts: justGathered":
    "hand-off of a build's gathered tracks between its steps in the same process",
  "server/ingest/timezone.ts: formats": "Intl formatters per time zone (construction is slow)",
  "server/activities/represent.ts: embedTokens":
    "embed tokens by what they are derived from (a pure function of it; a SHA-256 per read otherwise)",
  "server/ingest/terrain.ts: byDir": "elevation tiles opened once per directory",
  "server/archive/runs.ts: live": "progress of the imports this process runs, for the page that watches them",
  "server/http/auth.ts: tokenHashes":
    "the SHA-256 of the bearer tokens seen last (a pure function of the token; a hash per request otherwise)",
  "server/security.ts: waiting": "password hashes queued behind the few that may run at once in this process",
  "projections/activities/access-changes.ts: lastChange":
    "the activities whose owner or visibility this process changed last, so the server's access cache forgets them",
};

/** `import "./x.ts"` for its side effects: registration must be explicit. */
export function sideEffectImports(file: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(file, (node) => {
    if (ts.isImportDeclaration(node) && !node.importClause) found.push(where(file, node));
  });
  return found;
}

/** The folder of `server/<folder>/…` (undefined for server/'s own top-level files: the composition and the kernel). */
const serverFolder = (name: string) => /^server\/([^/]+)\//.exec(name)?.[1];

/**
 * Edges between server/'s folders, from every import (static, dynamic, type-only, re-export).
 * Not counted: the top level of server/ (it composes the features and holds the platform they
 * run on), and imports of another family's `schema.ts` (response models nest one another as
 * Strava's do; a schema file holds only data, see `schemaImports`).
 */
export function folderEdges(files: readonly { name: string; file: ts.SourceFile }[]): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const { name, file } of files) {
    const from = serverFolder(name);
    if (!from) continue;
    walk(file, (node) => {
      let specifier: string | undefined;
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        specifier = node.moduleSpecifier.text;
      } else if (
        ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        specifier = node.arguments[0].text;
      }
      if (!specifier?.startsWith(".")) return;
      const target = nameOf(resolve(ROOT, dirname(name), specifier));
      const to = serverFolder(target);
      if (!to || to === from || /\/schema\.ts$/.test(target)) return;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, where(file, node));
    });
  }
  return edges;
}

/** Cycles among folders (each strongly connected set of two or more), with one import per edge. */
export function folderCycles(edges: Map<string, Map<string, string>>): string[] {
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    on = new Set<string>();
  const cycles: string[] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next), low.set(v, next++), stack.push(v), on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!));
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do (w = stack.pop()!, on.delete(w), set.push(w)); while (w !== v);
    if (set.length > 1) {
      const inSet = new Set(set);
      const why = set.flatMap((a) =>
        [...(edges.get(a) ?? [])].filter(([b]) => inSet.has(b)).map(([b, line]) => `${a} → ${b} (${line})`)
      );
      cycles.push(`${set.sort().join(", ")}: ${why.join("; ")}`);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** A schema.ts holds data only: it imports zod, shared/, events/, http/schema.ts and other schema.ts files. */
export function schemaImports(file: ts.SourceFile): string[] {
  const found: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    if (specifier === "zod" || !specifier.startsWith(".")) continue;
    const target = nameOf(resolve(ROOT, dirname(nameOf(file.fileName)), specifier));
    if (
      /^(shared|events)\//.test(target) || target === "server/http/schema.ts" ||
      /^server\/[^/]+\/schema\.ts$/.test(target)
    ) continue;
    found.push(where(file, statement));
  }
  return found;
}

const offendingFiles = (lines: string[]) => [...new Set(lines.map((l) => l.slice(0, l.indexOf(":"))))].sort();

describe("architecture", () => {
  it("each check finds what it looks for on planted violations, and only that", () => {
    expect(importViolations(parse("events/x.ts", `import { a } from "../server/app.ts"; import "../shared/json.ts";`)))
      .toHaveLength(1);
    expect(
      importViolations(
        parse(
          "projections/x/y.ts",
          `export { a } from "../../server/app.ts"; const m = import("../../events/store.ts");`,
        ),
      ),
    ).toHaveLength(1);
    expect(
      importViolations(
        parse(
          "desktop/core/x.ts",
          `import { a } from "../../events/types.ts"; import { b } from "../../shared/json.ts";`,
        ),
      ),
    ).toHaveLength(1);
    expect(
      importViolations(parse("server/x.ts", `import { a } from "../projections/index.ts"; import { z } from "zod";`)),
    ).toEqual([]);

    const owners = new Map([["activities", "projections/activities/"], ["follows", "projections/follows/"], [
      "events",
      "events/",
    ], ["web_sessions", "server/web/"]]);
    const planted = parse(
      "server/x/y.ts",
      [
        "// select * from activities",
        "q(`select id from activities where x`);",
        "q('delete from rm.follows');",
        "q(`select 1 from t join ${s}.follows g`);",
        "q('insert into events (type) values ($1)');",
        "q('delete from public.web_sessions where id = $1');",
        "const s = 'activities'; const t = 'from the activities'; const u = 'hidden from others and from activities';",
      ].join("\n"),
    );
    expect(sqlOwnerViolations(planted, owners)).toHaveLength(5);
    expect(sqlOwnerViolations(parse("server/web/z.ts", "q('delete from public.web_sessions where id = $1');"), owners))
      .toEqual([]);
    expect(
      sqlOwnerViolations(
        parse("projections/follows/queries.ts", "q('select 1 from follows join activities a on true');"),
        owners,
      ),
    ).toEqual([]);
    expect(
      sqlOwnerViolations(
        parse(
          "projections/follows/projection.ts",
          "q('update activities set x = 1 where id = $1'); q('delete from follows where a = $1');",
        ),
        owners,
      ),
    ).toHaveLength(1);
    expect(sqlOwnerViolations(parse("projections/runner.ts", "q('truncate activities');"), owners)).toEqual([]);
    expect(
      sqlOwnerViolations(parse("projections/queries/lag.ts", "q('select max(global_position) from events');"), owners),
    ).toHaveLength(1);

    const sqlPlant = plantTyped(
      "server/__planted_sql__.ts",
      [
        `import type { Db, Queryable } from "../events/db/types.ts";`,
        `import { EVENT_STORE_SCHEMA } from "../events/schema.ts";`,
        `declare const db: Queryable; declare const platform: { db: Db }; declare const cols: string; declare const name: string;`,
        `declare function build(t: string): string; declare const form: FormData;`,
        "let sql = 'select 1'; sql += ' from x'; await db.query(sql);",
        "const DDL = 'create table if not exists x (a int)'; await db.exec(DDL); await db.exec(EVENT_STORE_SCHEMA); await db.query(`select ${cols} from jobs`);",
        "const table = 'activities'; await platform.db.query(`select * from ${table} where id = $1`, [1]);",
        'await platform.db.exec(`delete from "${name}"`);',
        "await db.query('select 1'); const q = db; await q.query(build('jobs')); form.append('query', build('x'));",
      ].join("\n"),
    );
    expect(builtSqlViolations(sqlPlant.file, sqlPlant.checker)).toHaveLength(5);

    const appendPlant = plantTyped(
      "server/__planted_append__.ts",
      [
        `import type { EventStore } from "../events/store.ts";`,
        `declare const platform: { store: EventStore }; declare const store: EventStore; declare const form: FormData; declare const headers: Headers;`,
        "await platform.store.append('s', 0, []);",
        "const s = platform.store; await s.append('s', 0, []);",
        "const { append } = store;",
        "await store['append']('x', 0, []);",
        "form.append('file', 'x'); headers.append('a', 'b'); const list = { append: (x: number) => x }; list.append(1);",
      ].join("\n"),
    );
    expect(appendViolations(appendPlant.file, appendPlant.checker)).toHaveLength(4);

    expect(
      handleCommandUses(
        parse(
          "server/clubs/routes.ts",
          `import { handleCommand } from "../../events/decider.ts"; import * as d from "../../events/decider.ts"; d.handleCommand(a, b, c, e);`,
        ),
      ),
    ).toHaveLength(2);
    expect(handleCommandUses(parse("server/clubs/routes.ts", `import { DomainError } from "../../events/decider.ts";`)))
      .toEqual([]);
    expect(isCommandsFile("server/clubs/commands.ts")).toBe(true);
    expect(
      isCommandsFile("server/clubs/routes.ts") || isCommandsFile("server/commands.ts") ||
        isCommandsFile("server/a/b/commands.ts"),
    ).toBe(false);

    expect(
      dataCasts(
        parse(
          "server/x.ts",
          "const a = e.data as Foo; const b = (first?.data) as Bar; const c = <Baz>e.data; const d = e.data; const f = x as Foo; const g = e.data as unknown;",
        ),
      ),
    ).toHaveLength(3);

    const pushes = parse(
      "server/gear/routes.ts",
      [
        `import { extensions } from "../athletes/routes.ts";`,
        `import { table } from "./table.ts";`,
        `import process from "node:process";`,
        `process.exitCode = 1;`,
        `const own: number[] = [];`,
        `extensions.push(gearExtension);`,
        `table.set("a", 1);`,
        `Object.assign(table, { b: 2 });`,
        `own.push(1);`,
        `export function later() { extensions.push(x); }`,
      ].join("\n"),
    );
    expect(loadTimePushes(pushes)).toHaveLength(3);
    expect(mutatedModuleCollections(parse(
      "server/x.ts",
      [
        "const registry = new Map(); export function register(k, v) { registry.set(k, v); }",
        "const list = []; export function add(x) { list.push(x); }",
        "const fixed = new Set(['a']); const weak = new WeakMap(); export function f(k) { weak.set(k, 1); return fixed.has(k); }",
      ].join("\n"),
    ))).toEqual(["server/x.ts: registry", "server/x.ts: list"]);

    expect(
      sideEffectImports(
        parse("server/x.ts", `import "./y.ts"; import { a } from "./z.ts"; import type { B } from "./b.ts";`),
      ),
    ).toHaveLength(1);

    const plantedFolders = [
      {
        name: "server/clubs/routes.ts",
        text:
          `import { a } from "../athletes/represent.ts"; import { z } from "../athletes/schema.ts"; import { p } from "../platform.ts";`,
      },
      { name: "server/athletes/routes.ts", text: `import type { C } from "../clubs/commands.ts";` },
      {
        name: "server/gear/routes.ts",
        text: `import { s } from "../clubs/schema.ts"; import { r } from "../athletes/represent.ts";`,
      },
      { name: "server/clubs/schema.ts", text: `import { g } from "../gear/schema.ts";` },
      { name: "server/uploads/job.ts", text: `const m = import("../segments/matching.ts");` },
      { name: "server/segments/matching.ts", text: `export { x } from "../uploads/job.ts";` },
    ].map(({ name, text }) => ({ name, file: parse(name, text) }));
    const cycles = folderCycles(folderEdges(plantedFolders));
    expect(cycles).toHaveLength(2);
    expect(cycles.map((c) => c.slice(0, c.indexOf(":")))).toEqual(
      expect.arrayContaining(["athletes, clubs", "segments, uploads"]),
    );
    expect(
      schemaImports(
        parse(
          "server/clubs/schema.ts",
          `import { z } from "zod"; import { a } from "../athletes/schema.ts"; import { m } from "../http/schema.ts"; import { f } from "./represent.ts"; import { q } from "../../projections/clubs/queries.ts";`,
        ),
      ),
    ).toHaveLength(2);

    expect(OWNERS.get("activities")).toBe("projections/activities/");
    expect(OWNERS.get("events")).toBe("events/");
    expect(OWNERS.get("web_sessions")).toBe("server/sessions/");
    expect(OWNERS.size).toBeGreaterThan(40);
  });

  it("the type checker follows the code's own aliases (the checks are not blind on real files)", () => {
    const decider = sources.find((s) => s.name === "events/decider.ts")!;
    expect(appendViolations(decider.file).length).toBeGreaterThan(0);
    const withQueries = sources.filter((s) => s.name.startsWith("server/")).filter((s) => {
      let calls = 0;
      walk(s.file, (n) => {
        if (ts.isCallExpression(n) && isDatabaseCall(n, checker)) calls++;
      });
      return calls > 0;
    });
    expect(withQueries.length).toBeGreaterThan(5);
  });

  it("imports go one way: shared ← events ← projections ← server; desktop imports only shared/", () => {
    expect(sources.flatMap((s) => importViolations(s.file))).toEqual([]);
  });

  it("a table is named in SQL only by its owner (read models: their projection and projections/queries/)", () => {
    const lines = sources.flatMap((s) => sqlOwnerViolations(s.file));
    expect(offendingFiles(lines), lines.join("\n")).toEqual([]);
  });

  it("SQL run outside events/ and projections/ is written at the call, never built", () => {
    // (A statement on a read model is, besides, only in projections/: see the owners' rule.)
    const lines = sources.filter((s) => s.name.startsWith("server/")).flatMap((s) => builtSqlViolations(s.file));
    expect(offendingFiles(lines), lines.join("\n")).toEqual([]);
  });

  it("only events/ appends to the store, through any alias", () => {
    const lines = sources.filter((s) => !s.name.startsWith("events/")).flatMap((s) => appendViolations(s.file));
    expect(offendingFiles(lines), lines.join("\n")).toEqual([]);
  });

  it("handleCommand is used only by the features' commands.ts", () => {
    const lines = sources.filter((s) => !s.name.startsWith("events/") && !isCommandsFile(s.name)).flatMap((s) =>
      handleCommandUses(s.file)
    );
    expect(offendingFiles(lines), lines.join("\n")).toEqual([]);
  });

  it("no `.data as` casts: events narrow on their type", () => {
    const lines = sources.flatMap((s) => dataCasts(s.file));
    expect(lines).toEqual([]);
  });

  it("no registration at load: nothing pushes into another module's list", () => {
    expect(sources.flatMap((s) => loadTimePushes(s.file))).toEqual([]);
  });

  it("module-level collections that code mutates are listed caches, not registries", () => {
    const found = sources.flatMap((s) => mutatedModuleCollections(s.file)).sort();
    expect(found).toEqual(Object.keys(CACHES).sort());
  });

  it("server's folders form no cycle: a feature's way reads straight down (its top level and schema nesting aside)", () => {
    expect(folderCycles(folderEdges(sources))).toEqual([]);
    expect(sources.filter((s) => /^server\/[^/]+\/schema\.ts$/.test(s.name)).flatMap((s) => schemaImports(s.file)))
      .toEqual([]);
  });

  it("registration is explicit: no side-effect imports", () => {
    expect(sources.flatMap((s) => sideEffectImports(s.file))).toEqual([]);
  });
});
