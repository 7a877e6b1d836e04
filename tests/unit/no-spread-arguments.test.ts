import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * A spread into a call (`Math.max(...series)`, `push(...items)`) passes every element as an
 * argument: over a long recording's samples it overflows the call stack. None may appear in the
 * code that handles samples. Found with the TypeScript parser (not a regex), so array and object
 * spreads, rest parameters, comments and strings are not mistaken for one.
 */
const ROOT = resolve(import.meta.dirname!, "../..");
const FOLDERS = ["server/ingest", "server/uploads", "server/segments"];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []
  );
}

export function spreadArguments(source: string, fileName = "x.ts"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments?.some(ts.isSpreadElement)) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${fileName}:${line + 1}: ${node.getText().slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("no spread arguments where samples are handled", () => {
  it("the finder sees spreads into calls and only those", () => {
    expect(spreadArguments("Math.max(...a); x.push(...b.map(f)); new Set(...c);")).toHaveLength(3);
    expect(
      spreadArguments(
        "const a = [...b]; const o = { ...p }; function f(...rest: number[]) {} // Math.max(...a)\nconst s = 'push(...x)';",
      ),
    ).toEqual([]);
  });

  it(`none in ${FOLDERS.join(", ")}`, () => {
    const all = FOLDERS.flatMap((folder) => files(join(ROOT, folder)));
    expect(all.length).toBeGreaterThan(20);
    const found = all.flatMap((path) => spreadArguments(readFileSync(path, "utf8"), relative(ROOT, path)));
    expect(found).toEqual([]);
  });
});
