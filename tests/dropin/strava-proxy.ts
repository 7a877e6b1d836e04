import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * www.strava.com, here: what a user runs to point a Strava tool whose address is written into its
 * code at this server without changing the tool — an HTTPS proxy (HTTPS_PROXY) that answers the
 * tool's CONNECT www.strava.com:443 itself, with a certificate for www.strava.com from a local
 * authority the tool's runtime is told to trust (NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE), and sends
 * each request it decrypts — method, path (/api/v3/…, /oauth/…), query, headers, body — to the
 * server. Anything else is refused. The certificate is made with openssl for the test run.
 */
const run = promisify(execFile);
export const STRAVA_HOST = "www.strava.com";

export interface StravaProxy {
  /** HTTPS_PROXY for the tool. */
  url: string;
  /** The authority's certificate (PEM) the tool's runtime must trust. */
  caFile: string;
  /** "METHOD https://www.strava.com/path?query" of every request the tool made, in order (access_token values hidden). */
  requests: string[];
  close(): Promise<void>;
}

async function certificate(dir: string): Promise<{ key: string; cert: string; caFile: string }> {
  const ca = ["-subj", "/CN=Fitness test authority", "-addext", "basicConstraints=critical,CA:TRUE"];
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-keyout",
    join(dir, "ca.key"),
    "-out",
    join(dir, "ca.pem"),
    ...ca,
  ]);
  await run("openssl", [
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    join(dir, "host.key"),
    "-out",
    join(dir, "host.csr"),
    "-subj",
    `/CN=${STRAVA_HOST}`,
  ]);
  await run("bash", [
    "-c",
    `printf 'subjectAltName=DNS:${STRAVA_HOST}\\nextendedKeyUsage=serverAuth\\n' > "$1/ext" && openssl x509 -req -in "$1/host.csr" -CA "$1/ca.pem" -CAkey "$1/ca.key" -CAcreateserial -days 2 -extfile "$1/ext" -out "$1/host.pem"`,
    "sh",
    dir,
  ]);
  return {
    key: readFileSync(join(dir, "host.key"), "utf8"),
    cert: readFileSync(join(dir, "host.pem"), "utf8"),
    caFile: join(dir, "ca.pem"),
  };
}

const HOP_BY_HOP = new Set(["host", "connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade"]);

/** Starts the proxy in front of `target` (the server's base URL). */
export async function startStravaProxy(target: string): Promise<StravaProxy> {
  const dir = mkdtempSync(join(tmpdir(), "strava-proxy-"));
  const { key, cert, caFile } = await certificate(dir);
  const requests: string[] = [];
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/";
    requests.push(`${req.method} https://${STRAVA_HOST}${path.replace(/access_token=[^&]+/, "access_token=***")}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(k) && typeof v === "string") headers[k] = v;
    }
    try {
      const answer = await fetch(`${target}${path}`, {
        method: req.method,
        headers,
        body: chunks.length && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined,
        redirect: "manual",
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (!HOP_BY_HOP.has(k) && k !== "content-encoding" && k !== "content-length") out[k] = v;
      });
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  };
  const tls = createHttpsServer({ key, cert }, (req, res) => void forward(req, res));
  const proxy = createHttpServer((_req, res) => res.writeHead(403).end("only CONNECT www.strava.com:443"));
  const sockets = new Set<Socket>();
  proxy.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    if (req.url !== `${STRAVA_HOST}:443`) {
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) socket.unshift(head);
    tls.emit("connection", socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    caFile,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      tls.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
