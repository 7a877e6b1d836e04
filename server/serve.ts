/** Listens on a port with whatever runtime runs us: Deno.serve on Deno, @hono/node-server on Node. */
import { withSecurityHeaders } from "./http/security-headers.ts";

export interface Listening {
  port: number;
  close(): Promise<void>;
}

type FetchHandler = (request: Request) => Response | Promise<Response>;

export async function listen(fetch: FetchHandler, options: { port: number; hostname?: string }): Promise<Listening> {
  // deno-lint-ignore no-explicit-any
  const deno = (globalThis as any).Deno;
  if (deno?.serve) {
    const server = deno.serve(
      {
        port: options.port,
        hostname: options.hostname ?? "0.0.0.0",
        onListen: () => {},
        // Only what escapes the app's own error handling (it answers every error it sees): the
        // documented fault, with the security headers, never Deno's bare text or a stack trace.
        onError: (error: unknown) => {
          console.error(`unhandled: ${(error as Error)?.stack ?? error}`);
          const body = JSON.stringify({ message: "Internal Server Error", errors: [] });
          return withSecurityHeaders(
            new Response(body, { status: 500, headers: { "content-type": "application/json; charset=utf-8" } }),
          );
        },
      },
      fetch,
    );
    return { port: server.addr.port, close: () => server.shutdown() };
  }
  const { serve } = await import("@hono/node-server");
  return await new Promise<Listening>((resolve) => {
    const server = serve({ fetch, port: options.port, hostname: options.hostname ?? "0.0.0.0" }, (info) =>
      resolve({
        port: info.port,
        // Graceful like Deno's shutdown(): no new connections, idle ones closed, requests in flight
        // finish; connections still open after 5 s are cut.
        close: () =>
          new Promise<void>((done) => {
            const http = server as unknown as { closeAllConnections?: () => void; closeIdleConnections?: () => void };
            const cut = setTimeout(() => http.closeAllConnections?.(), 5000);
            server.close(() => {
              clearTimeout(cut);
              done();
            });
            http.closeIdleConnections?.();
          }),
      }));
    // Idle keep-alive connections stay open longer than clients keep them (undici: 4 s; proxies: 60 s),
    // so a client never reuses a socket the server is closing (ECONNRESET when the loop was busy).
    (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 65_000;
  });
}
