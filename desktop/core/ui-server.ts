import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";
import { toJson } from "../../shared/json.ts";
import { pageHtml } from "../ui/page.ts";
import type { Companion } from "./companion.ts";
import { signIn, type TokenStore } from "./oauth.ts";
import { loadSettings, saveSettings, type Settings } from "./settings.ts";

export interface UiServerOptions {
  companion: Companion;
  stateDir: string;
  tokenStore?: TokenStore;
  port?: number;
  /** How the sign-in page is opened (Electron: the system browser); the page opens it itself otherwise. */
  openExternal?: (url: string) => void;
  /** Called after settings change (Electron: start at login). */
  onSettings?: (settings: Settings) => void;
}

export interface UiServer {
  url: string;
  key: string;
  close(): Promise<void>;
}

/**
 * Serves the window's page and its small JSON API on 127.0.0.1 only. Every request carries a random
 * key (in the page address, then a header) so other local programs and web pages can't drive it.
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const key = randomBytes(18).toString("base64url");
  let signInStatus: { state: "idle" | "waiting" | "failed" | "done"; message?: string; url?: string } = {
    state: "idle",
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => send(res, 500, { message: (error as Error).message }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/") {
      if (!sameKey(url.searchParams.get("key"))) {
        res.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end(
          "Open the address the companion printed (it carries a key).",
        );
        return;
      }
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy":
          "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
      });
      res.end(pageHtml(key));
      return;
    }
    if (!url.pathname.startsWith("/api/")) {
      res.writeHead(404).end();
      return;
    }
    if (!sameKey(req.headers["x-companion-key"] as string | undefined)) {
      return send(res, 403, { message: "missing or wrong key" });
    }
    const settings = loadSettings(options.stateDir);
    const { companion } = options;
    if (req.method === "GET" && url.pathname === "/api/state") {
      const token = options.tokenStore?.load();
      return send(res, 200, {
        ...companion.state(),
        settings: { ...settings, clientSecret: undefined },
        signedIn: token ? { athlete: token.athlete ?? null, server: token.server } : null,
        signIn: signInStatus,
      });
    }
    if (req.method !== "POST") return send(res, 405, { message: "method not allowed" });
    const body = await readJson(req);
    switch (url.pathname) {
      case "/api/folders": {
        const folder = typeof body.folder === "string" ? body.folder.trim() : "";
        if (!folder) return send(res, 400, { message: "Give a folder." });
        const source = await companion.addFolder(folder);
        if (!settings.folders.includes(source.folder)) settings.folders.push(source.folder);
        saveSettings(options.stateDir, settings);
        return send(res, 200, { folder: source.folder });
      }
      case "/api/folders/remove": {
        const folder = String(body.folder ?? "");
        await companion.removeFolder(folder);
        settings.folders = settings.folders.filter((f) => f !== folder);
        saveSettings(options.stateDir, settings);
        return send(res, 200, { folders: settings.folders });
      }
      case "/api/settings": {
        if (typeof body.server === "string") settings.server = body.server.trim() || undefined;
        if (typeof body.clientId === "string") settings.clientId = body.clientId.trim() || undefined;
        if (typeof body.startAtLogin === "boolean") settings.startAtLogin = body.startAtLogin;
        saveSettings(options.stateDir, settings);
        options.onSettings?.(settings);
        return send(res, 200, {
          ...settings,
          clientSecret: undefined,
          restartNeeded: settings.server !== undefined && settings.server !== companion.server,
        });
      }
      case "/api/retry":
        companion.retryNow();
        return send(res, 200, { ok: true });
      case "/api/sign-in": {
        const store = options.tokenStore;
        const server = settings.server ?? companion.server;
        if (!store || !settings.clientId) {
          return send(res, 400, { message: "Set the client id of the companion's application in Settings first." });
        }
        let opened!: (url: string) => void;
        const urlReady = new Promise<string>((resolve) => (opened = resolve));
        signInStatus = { state: "waiting" };
        signIn({
          server,
          clientId: settings.clientId,
          clientSecret: settings.clientSecret,
          open: (u) => {
            signInStatus = { state: "waiting", url: u };
            options.openExternal?.(u);
            opened(u);
          },
        }).then((token) => {
          store.save(token);
          signInStatus = { state: "done" };
          companion.retryNow();
        }, (error) => {
          signInStatus = { state: "failed", message: (error as Error).message };
          opened("");
        });
        const authorizeUrl = await urlReady;
        return send(res, 200, { url: authorizeUrl, opened: !!options.openExternal });
      }
      case "/api/sign-out":
        options.tokenStore?.clear();
        return send(res, 200, { ok: true });
    }
    return send(res, 404, { message: "not found" });
  }

  function sameKey(candidate: string | null | undefined): boolean {
    if (!candidate) return false;
    const a = Buffer.from(candidate);
    const b = Buffer.from(key);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?key=${key}`,
    key,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(toJson(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Uint8Array).byteLength;
    if (size > 64 * 1024) throw new Error("body too large");
    chunks.push(chunk as Uint8Array);
  }
  if (!size) return {};
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}
