import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEVICES } from "../helpers/fixtures.ts";

const sources = readFileSync(join(DEVICES, "SOURCES.md"), "utf8");
const licences = readFileSync(join(DEVICES, "LICENSES.md"), "utf8");

describe("the project's device files carry their licence notices", () => {
  it("every repository SOURCES.md takes files from has its licence text and copyright at that commit in LICENSES.md", () => {
    const repos = [...sources.matchAll(/^\| ([\w.-]+\/[\w.-]+) \| `([0-9a-f]{40})` \| ([\w.-]+) \(/gm)];
    expect(repos.length).toBeGreaterThan(5);
    for (const [, repo, commit, licence] of repos) {
      const section = licences.split(/^## /m).find((s) => s.startsWith(`${repo} (${licence})`));
      expect(section, repo).toBeDefined();
      expect(section).toContain(commit);
      expect(section).toMatch(/Copyright/);
      if (licence === "MIT") {
        expect(section).toContain("The above copyright notice and this permission notice shall be included");
      }
      if (licence === "BSD-2-Clause") {
        expect(section).toContain("Redistributions of source code must retain the above copyright notice");
      }
      if (licence === "Apache-2.0") {
        expect(section).toContain("Apache License");
        expect(section).toContain("NOTICE.txt");
      }
    }
  });

  it("holds no copyleft file: every file is listed in SOURCES.md with a permissive licence", () => {
    for (const dir of ["fit", "tcx", "gpx", "broken"]) {
      for (const name of readdirSync(join(DEVICES, dir))) {
        const row = sources.split("\n").find((l) => l.startsWith(`| \`${name}\``));
        expect(row, `${dir}/${name}`).toBeDefined();
        expect(row).toMatch(/\| (MIT|BSD-2-Clause|Apache-2\.0) \|/);
      }
    }
  });
});
