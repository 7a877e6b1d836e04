import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ATTEMPT_HEADER, DELIVERY_HEADER, SIGNATURE_HEADER, verifySignature } from "../../server/webhooks/signature.ts";

/** How one callback path answers the validation handshake. */
export type HandshakeMode = "echo" | "wrong-challenge" | "slow" | "error" | "not-json";

export interface Delivery {
  path: string;
  body: string;
  json: Record<string, unknown>;
  deliveryId: string | null;
  attempt: string | null;
  /** The signature header verified with the application's client secret. */
  signatureValid: boolean;
  /** The status this receiver answered. */
  answered: number;
}

export interface Handshake {
  path: string;
  query: URLSearchParams;
}

interface Hook {
  secret: string;
  handshake: HandshakeMode;
  /** Decides the status of each delivery POST (default 200). */
  respond: (attemptIndex: number) => number;
  posts: number;
}

/**
 * The outside subscriber: a real HTTP server on 127.0.0.1. Each callback path (/hooks/<name>)
 * belongs to one application (its client secret verifies the signatures) and has its own
 * handshake and delivery behaviour.
 */
export class Receiver {
  readonly deliveries: Delivery[] = [];
  readonly handshakes: Handshake[] = [];
  readonly #hooks = new Map<string, Hook>();
  #server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server ? this.#server.close(() => resolve()) : resolve());
  }

  /** Registers a callback path and returns its URL. */
  hook(
    name: string,
    secret: string,
    options: { handshake?: HandshakeMode; respond?: (attemptIndex: number) => number } = {},
  ): string {
    this.#hooks.set(`/hooks/${name}`, {
      secret,
      handshake: options.handshake ?? "echo",
      respond: options.respond ?? (() => 200),
      posts: 0,
    });
    return `${this.url}/hooks/${name}`;
  }

  /** Changes how a path answers deliveries from now on. */
  respond(name: string, respond: (attemptIndex: number) => number): void {
    this.#hooks.get(`/hooks/${name}`)!.respond = respond;
  }

  /** Delivery POSTs a path received (every attempt). */
  received(name: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === `/hooks/${name}`);
  }

  /** Deliveries a path acknowledged with a 2xx. */
  acknowledged(name: string): Delivery[] {
    return this.received(name).filter((d) => d.answered >= 200 && d.answered < 300);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const hook = this.#hooks.get(url.pathname);
    if (!hook) {
      res.writeHead(404).end();
      return;
    }
    if (req.method === "GET") {
      this.handshakes.push({ path: url.pathname, query: url.searchParams });
      const challenge = url.searchParams.get("hub.challenge");
      const json = (body: unknown) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      switch (hook.handshake) {
        case "echo":
          return void json({ "hub.challenge": challenge });
        case "wrong-challenge":
          return void json({ "hub.challenge": `${challenge}x` });
        case "slow":
          setTimeout(() => json({ "hub.challenge": challenge }), 2600);
          return;
        case "error":
          return void res.writeHead(500, { "content-type": "application/json" }).end(
            JSON.stringify({ "hub.challenge": challenge }),
          );
        case "not-json":
          return void res.writeHead(200, { "content-type": "text/plain" }).end(String(challenge));
      }
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const status = hook.respond(hook.posts++);
    this.deliveries.push({
      path: url.pathname,
      body,
      json: JSON.parse(body) as Record<string, unknown>,
      deliveryId: header(req, DELIVERY_HEADER),
      attempt: header(req, ATTEMPT_HEADER),
      signatureValid: verifySignature(hook.secret, body, header(req, SIGNATURE_HEADER)),
      answered: status,
    });
    res.writeHead(status).end();
  }
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value ?? null;
}

/** Polls until check() returns a value other than undefined/false (fails after timeoutMs). */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
