import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/deno.ts";

/**
 * docs/fitness-lb.conf is a template (issue #41 item 6: it hard-coded port 8000 and /tmp paths, so
 * two proxies on one host collided): rendered with envsubst as docs/operators.md says, for two
 * proxies side by side, each configuration passes `nginx -t` and the two share no port and no file.
 */
const VARIABLES = "$FITNESS_LB_PORT $FITNESS_LB_DIR $FITNESS_API_SERVERS";

function render(env: Record<string, string>): string {
  return execFileSync("envsubst", [VARIABLES], {
    input: readFileSync(join(ROOT, "docs/fitness-lb.conf"), "utf8"),
    env: { ...process.env, ...env },
  }).toString();
}

describe("docs/fitness-lb.conf", () => {
  it("renders for two proxies on one host that nginx accepts and that share no port or file", () => {
    expect(readFileSync(join(ROOT, "docs/fitness-lb.conf"), "utf8")).not.toMatch(/\/tmp\/|listen \d/);
    const base = mkdtempSync(join(tmpdir(), "fitness-lb-"));
    const proxies = [
      { port: "18000", dir: join(base, "a"), servers: "server 127.0.0.1:18081; server 127.0.0.1:18082;" },
      { port: "18100", dir: join(base, "b"), servers: "server 127.0.0.1:18181;" },
    ];
    const paths: string[][] = [];
    for (const p of proxies) {
      mkdirSync(p.dir);
      const conf = render({ FITNESS_LB_PORT: p.port, FITNESS_LB_DIR: p.dir, FITNESS_API_SERVERS: p.servers });
      expect(conf).not.toMatch(/\$\{?FITNESS_/);
      expect(conf).toContain("proxy_set_header Host $host;"); // nginx's own variables are left alone
      expect(conf).toContain(`listen ${p.port};`);
      expect(conf).toContain(p.servers);
      const file = join(p.dir, "nginx.conf");
      writeFileSync(file, conf);
      // The standard validator: nginx parses it (the error log of the check itself goes to the proxy's directory).
      const checked = execFileSync("nginx", ["-t", "-q", "-c", file, "-p", p.dir, "-e", join(p.dir, "check.log")], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      expect(checked.toString()).toBe("");
      paths.push([...conf.matchAll(/^\s*(?:pid|error_log|\w+_temp_path)\s+(\S+);/gm)].map((m) => m[1]));
    }
    expect(paths[0].length).toBe(7);
    expect(paths[0].filter((p) => paths[1].includes(p))).toEqual([]);
    expect(paths.flat().every((p, _, all) => all.indexOf(p) === all.lastIndexOf(p))).toBe(true);
  });
});
