import { Agent, request } from "node:http";

/**
 * A burst client: many requests started at once over a pool of keep-alive sockets. (fetch would
 * open one connection per request; a thousand SYNs at once overflow the listen backlog of a
 * loopback server, which is a property of the test machine, not of the server.)
 */
export function burstClient(baseUrl: string, maxSockets = 128) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const base = new URL(baseUrl);
  return {
    send(method: string, path: string, token?: string): Promise<{ status: number; text: string }> {
      return new Promise((resolve, reject) => {
        const req = request({
          agent,
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: token ? { authorization: `Bearer ${token}`, "content-length": "0" } : { "content-length": "0" },
        }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}
