import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Table names SQL statements in a source name (after from / join / into / update / using / table). */
export function tablesNamed(source: string, tables: string[]): string[] {
  return tables.filter((t) => new RegExp(`\\b(from|join|into|update|using|table)\\s+${t}\\b`, "i").test(source));
}

/** The files of a projection's module and of the local modules it imports, recursively. */
export function moduleFiles(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = readFileSync(file, "utf8");
  const files = [file];
  for (const m of source.matchAll(/from\s+"(\.\/[^"]+)"/g)) {
    files.push(...moduleFiles(resolve(dirname(file), m[1]), seen));
  }
  return files;
}

/** The source of a projection's module and of the local modules it imports, recursively. */
export function moduleSources(file: string): string {
  return moduleFiles(file).map((f) => readFileSync(f, "utf8")).join("");
}

/** Each projection's defining file, by the projection's name. */
export function projectionFiles(): Map<string, string> {
  const root = fileURLToPath(new URL("../../projections", import.meta.url));
  const byName = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) {
        const m = /export const \w+Projection: Projection = \{\s*name: "([^"]+)"/.exec(readFileSync(path, "utf8"));
        if (m) byName.set(m[1], path);
      }
    }
  };
  walk(root);
  return byName;
}
