import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/deno.ts";

describe("docs/fitness.service", () => {
  it("passes systemd-analyze verify with no warnings and is the unit docs/operators.md shows", () => {
    const unit = readFileSync(join(ROOT, "docs/fitness.service"), "utf8");
    const dir = mkdtempSync(join(tmpdir(), "fitness-unit-"));
    writeFileSync(join(dir, "fitness.service"), unit);
    const run = spawnSync("systemd-analyze", ["verify", join(dir, "fitness.service")], { encoding: "utf8" });
    expect(run.error).toBeUndefined(); // systemd-analyze is installed (.ci/run installs systemd)
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr.split("\n").filter((l) => l.includes("fitness.service"))).toEqual([]);
    // Graceful stop and no restart loop on configuration errors (exit 2).
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^RestartPreventExitStatus=2$/m);
    const operators = readFileSync(join(ROOT, "docs/operators.md"), "utf8");
    expect(operators).toContain(unit.split("[Unit]")[1].split("\n[Service]")[0].trim());
  });
});
