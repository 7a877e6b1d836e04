import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BATCH_MS, batchedLines } from "../../server/ops/line-writer.ts";
import { DENO, ROOT } from "../helpers/deno.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("request log lines are written in batches (server/ops/line-writer.ts)", () => {
  it("writes the lines of a batch window at once, in order, one write per window", async () => {
    const writes: string[] = [];
    const log = batchedLines((text) => writes.push(text));
    for (let i = 0; i < 5; i++) log(`line ${i}`);
    expect(writes).toEqual([]);
    await sleep(BATCH_MS * 5);
    expect(writes).toEqual(["line 0\nline 1\nline 2\nline 3\nline 4"]);
    log("line 5");
    await sleep(BATCH_MS * 5);
    expect(writes).toEqual(["line 0\nline 1\nline 2\nline 3\nline 4", "line 5"]);
  });

  it("writes a full batch at once (1,000 lines) without waiting for the window", () => {
    const writes: string[] = [];
    const log = batchedLines((text) => writes.push(text), 60_000);
    for (let i = 0; i < 1_000; i++) log(`l${i}`);
    expect(writes).toHaveLength(1);
    expect(writes[0].split("\n")).toHaveLength(1_000);
  });

  for (const exit of ["Deno.exit(0)", "process.exit(0)"]) {
    it(`loses no pending line when the process exits (${exit}) before the window ends, on Deno`, () => {
      const script = `import process from "node:process";
        import { batchedLines } from "./server/ops/line-writer.ts";
        const log = batchedLines();
        for (let i = 0; i < 3; i++) log("pending line " + i);
        ${exit};`;
      const run = spawnSync(DENO, ["eval", "--ext=ts", script], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
      });
      expect(run.status).toBe(0);
      expect(run.stdout.split("\n").filter((l) => l.startsWith("pending line"))).toEqual([
        "pending line 0",
        "pending line 1",
        "pending line 2",
      ]);
    }, 60_000);
  }
});
