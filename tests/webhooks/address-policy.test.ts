import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Address,
  checkTarget,
  classifyAddress,
  formatIPv4,
  parseIPv4,
  parseIPv6,
  parseRange,
  type Resolver,
} from "../../server/webhooks/address-policy.ts";
import { callbackRequest } from "../../server/webhooks/outbound.ts";
import { DENO, ROOT } from "../helpers/deno.ts";

describe("address parsing", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0177.1", "127.0.0.1"],
    ["169.254.169.254", "169.254.169.254"],
    ["0xa9.0xfe.0xa9.0xfe", "169.254.169.254"],
    ["2852039166", "169.254.169.254"],
    ["0", "0.0.0.0"],
    ["10.1.", "10.0.0.1"],
  ])("reads IPv4 %s as %s", (text, dotted) => {
    const value = parseIPv4(text);
    expect(value).not.toBeNull();
    expect(formatIPv4(value!)).toBe(dotted);
  });

  it.each([
    "256.0.0.1",
    "1.2.3.4.5",
    "08.1.1.1",
    "0x1g.0.0.1",
    "1.2.65536",
    "4294967296",
    "example.com",
    "1.2.3.-4",
    "",
  ])(
    "refuses %s as IPv4",
    (text) => {
      expect(parseIPv4(text)).toBeNull();
    },
  );

  it("reads IPv6 with compression, brackets, zones and a dotted tail", () => {
    expect([...parseIPv6("::1")!]).toEqual([...new Array(15).fill(0), 1]);
    expect([...parseIPv6("[::ffff:169.254.169.254]")!].slice(10)).toEqual([0xff, 0xff, 169, 254, 169, 254]);
    expect([...parseIPv6("fe80::1%eth0")!].slice(0, 2)).toEqual([0xfe, 0x80]);
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeNull();
    expect(parseIPv6("::1::")).toBeNull();
    expect(parseIPv6("127.0.0.1")).toBeNull();
    expect(parseIPv6("::ffff:300.1.1.1")).toBeNull();
  });
});

describe("address classes", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["2130706433", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this-network"],
    ["10.20.30.40", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["169.254.169.254", "link-local"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.7", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["240.0.0.1", "reserved"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["::ffff:169.254.169.254", "link-local"],
    ["[::ffff:a9fe:a9fe]", "link-local"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:0:10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::169.254.169.254", "link-local"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["2001:0:4136:e378::1", "tunnel"],
    ["fd00::1", "unique-local"],
    ["fc12::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["100::1", "reserved"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ])(
    "%s is public",
    (address) => {
      expect(classifyAddress(address)).toBe("public");
    },
  );

  it("reads operator ranges", () => {
    expect(parseRange("192.168.1.0/24")).toMatchObject({ family: 4, bits: 24 });
    expect(parseRange("127.0.0.1")).toMatchObject({ family: 4, bits: 32 });
    expect(parseRange("fd00::/8")).toMatchObject({ family: 6, bits: 8 });
    expect(parseRange("192.168.1.0/33")).toBeNull();
    expect(parseRange("localhost")).toBeNull();
    expect(parseRange("127.1")).toBeNull();
  });
});

const fixed = (answers: Record<string, string[]>): Resolver => async (hostname) => {
  const found = answers[hostname];
  if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return found.map((address): Address => ({ address, family: address.includes(":") ? 6 : 4 }));
};

describe("checkTarget", () => {
  const publicOnly = { allowPrivate: false as const };
  it("refuses when any resolved address is not public, and names it", async () => {
    const resolve = fixed({
      "mixed.test": ["93.184.216.34", "10.0.0.5"],
      "public.test": ["93.184.216.34", "2606:2800:220:1::1"],
    });
    const mixed = await checkTarget(new URL("http://mixed.test/cb"), { ...publicOnly, resolve });
    expect(mixed).toEqual({ ok: false, reason: "private address", detail: "mixed.test is 10.0.0.5 (private)" });
    const ok = await checkTarget(new URL("https://public.test/cb"), { ...publicOnly, resolve });
    expect(ok.ok).toBe(true);
  });

  it("refuses every literal form of an internal address and a name that does not resolve", async () => {
    const refused: string[] = [];
    for (
      const host of [
        "127.0.0.1",
        "127.1",
        "2130706433",
        "0x7f.1",
        "0177.0.0.1",
        "[::1]",
        "169.254.169.254",
        "[::ffff:169.254.169.254]",
        "0.0.0.0",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.0.1",
        "100.64.0.1",
        "[fd00::1]",
        "[fe80::1]",
        "[64:ff9b::a9fe:a9fe]",
      ]
    ) {
      const result = await checkTarget(new URL(`http://${host}:8080/cb`), { ...publicOnly, resolve: fixed({}) });
      if (!result.ok && result.reason === "private address") refused.push(host);
    }
    expect(refused).toHaveLength(16);
    const unknown = await checkTarget(new URL("http://nothing.invalid/cb"), { ...publicOnly, resolve: fixed({}) });
    expect(unknown).toMatchObject({ ok: false, reason: "not resolvable" });
  });

  it("allows private addresses with the operator setting, or only the listed ranges", async () => {
    const resolve = fixed({ "lab.test": ["192.168.1.20"] });
    expect((await checkTarget(new URL("http://lab.test/cb"), { allowPrivate: true, resolve })).ok).toBe(true);
    const lan = [parseRange("192.168.1.0/24")!];
    expect((await checkTarget(new URL("http://lab.test/cb"), { allowPrivate: lan, resolve })).ok).toBe(true);
    expect((await checkTarget(new URL("http://169.254.169.254/"), { allowPrivate: lan, resolve })).ok).toBe(false);
    expect((await checkTarget(new URL("http://[::ffff:192.168.1.9]/"), { allowPrivate: lan, resolve })).ok).toBe(true);
  });
});

/**
 * The outbound guard with real listeners. Offline, every reachable listener is on a loopback
 * address, so the policy here allows exactly 127.0.0.1 (an operator range): 127.0.0.2 (also
 * loopback on Linux, so a listener there would receive what gets through) stands for "private".
 */
describe("callbackRequest: redirects and pinning", () => {
  const requests = { first: [] as string[], second: [] as string[] };
  let first: Server;
  let second: Server;
  let firstUrl = "";
  let secondUrl = "";
  const only127001 = { allowPrivate: [parseRange("127.0.0.1/32")!] };

  function listen(server: Server, host: string): Promise<string> {
    return new Promise((resolve) =>
      server.listen(0, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`))
    );
  }

  beforeAll(async () => {
    second = createServer((req: IncomingMessage, res: ServerResponse) => {
      requests.second.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    secondUrl = await listen(second, "127.0.0.2");
    first = createServer((req: IncomingMessage, res: ServerResponse) => {
      requests.first.push(`${req.method} ${req.url}`);
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/to-second") return void res.writeHead(307, { location: `${secondUrl}/stolen` }).end();
      if (url.pathname === "/to-metadata") {
        return void res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      }
      if (url.pathname === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
      if (url.pathname === "/to-ok") return void res.writeHead(308, { location: "/ok" }).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ host: req.headers.host }));
    });
    firstUrl = await listen(first, "127.0.0.1");
  });

  afterAll(async () => {
    await new Promise<void>((r) => first.close(() => r()));
    await new Promise<void>((r) => second.close(() => r()));
  });

  it("refuses a redirect hop to a non-allowed address: nothing is sent there", async () => {
    const post = await callbackRequest({ method: "POST", url: `${firstUrl}/to-second`, body: "{}" }, {
      policy: only127001,
      timeoutMs: 2000,
    });
    expect(post).toMatchObject({ kind: "refused", reason: "private address", hops: 1 });
    const get = await callbackRequest({ method: "GET", url: `${firstUrl}/to-metadata` }, {
      policy: only127001,
      timeoutMs: 2000,
    });
    expect(get).toMatchObject({
      kind: "refused",
      reason: "private address",
      url: "http://169.254.169.254/latest/meta-data/",
    });
    expect(requests.second).toEqual([]);
  });

  it("follows allowed redirects (307/308 keep the POST) and bounds the hops", async () => {
    const ok = await callbackRequest({ method: "POST", url: `${firstUrl}/to-ok`, body: "{}" }, {
      policy: only127001,
      timeoutMs: 2000,
    });
    expect(ok).toMatchObject({ kind: "answered", status: 200, hops: 1 });
    expect(requests.first.slice(-2)).toEqual(["POST /to-ok", "POST /ok"]);
    const loop = await callbackRequest({ method: "GET", url: `${firstUrl}/loop` }, {
      policy: only127001,
      timeoutMs: 2000,
    });
    expect(loop).toEqual({ kind: "failed", error: "more than 3 redirects", hops: 3 });
  });

  it("re-checks at every request: a name that moved to a refused address is refused (DNS can change)", async () => {
    const port = new URL(firstUrl).port;
    let answer = "127.0.0.1";
    const rebinding: Resolver = async () => [{ address: answer, family: 4 }];
    const policy = { ...only127001, resolve: rebinding };
    const before = await callbackRequest({ method: "POST", url: `http://hooks.example:${port}/cb`, body: "{}" }, {
      policy,
      timeoutMs: 2000,
    });
    expect(before).toMatchObject({ kind: "answered", status: 200 });
    answer = "127.0.0.2";
    const after = await callbackRequest({ method: "POST", url: `http://hooks.example:${port}/cb`, body: "{}" }, {
      policy,
      timeoutMs: 2000,
    });
    expect(after).toMatchObject({ kind: "refused", reason: "private address" });
    expect(requests.second).toEqual([]);
  });

  it("connects to the checked address, not to a second lookup (the Host header keeps the name)", async () => {
    const port = new URL(firstUrl).port;
    // hooks.invalid cannot resolve through the system: the request reaches the listener only
    // through the address the policy checked.
    const resolve = fixed({ "hooks.invalid": ["127.0.0.1"] });
    const answer = await callbackRequest({ method: "GET", url: `http://hooks.invalid:${port}/pinned` }, {
      policy: { ...only127001, resolve },
      timeoutMs: 2000,
    });
    expect(answer).toMatchObject({ kind: "answered", status: 200 });
    expect(JSON.parse((answer as { body: string }).body)).toEqual({ host: `hooks.invalid:${port}` });
  });
});

describe("callbackRequest over https on Deno (as shipped)", () => {
  it("connects to the checked address while TLS verifies the callback's name", () => {
    const dir = mkdtempSync(join(tmpdir(), "fitness-callback-tls-"));
    try {
      execFileSync("openssl", [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-days",
        "1",
        "-subj",
        "/CN=hooks.test",
        "-addext",
        "subjectAltName=DNS:hooks.test",
      ], { stdio: "ignore" });
      const script = join(dir, "check.ts");
      writeFileSync(
        script,
        `
import https from "node:https";
import { readFileSync } from "node:fs";
import { callbackRequest } from ${JSON.stringify(join(ROOT, "server/webhooks/outbound.ts"))};
const server = https.createServer({ key: readFileSync(${JSON.stringify(join(dir, "key.pem"))}), cert: readFileSync(${
          JSON.stringify(join(dir, "cert.pem"))
        }) },
  (req, res) => res.end(JSON.stringify({ host: req.headers.host })));
await new Promise((r) => server.listen(0, "127.0.0.1", () => r(undefined)));
const port = server.address().port;
// Neither name resolves through the system: only the policy's resolver knows them.
const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
const out = {};
for (const name of ["hooks.test", "other.test"]) {
  out[name] = await callbackRequest({ method: "GET", url: "https://" + name + ":" + port + "/cb" }, { policy: { allowPrivate: true, resolve }, timeoutMs: 5000 });
}
out.refused = await callbackRequest({ method: "GET", url: "https://hooks.test:" + port + "/cb" }, { policy: { allowPrivate: false, resolve }, timeoutMs: 5000 });
server.close();
console.log(JSON.stringify(out));
`,
      );
      const run = spawnSync(DENO, ["run", "-A", "--no-lock", script], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: "1", NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
      expect(out["hooks.test"]).toMatchObject({ kind: "answered", status: 200 });
      expect(JSON.parse(out["hooks.test"].body).host).toMatch(/^hooks\.test:\d+$/);
      // Same address, another name: the certificate does not match, so nothing is sent.
      expect(out["other.test"]).toMatchObject({
        kind: "failed",
        error: expect.stringMatching(/altnames|certificate/i),
      });
      expect(out.refused).toMatchObject({ kind: "refused", reason: "private address" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
