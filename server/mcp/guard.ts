/**
 * DNS-rebinding protection for /mcp (MCP transports, "Security Warning"): a request is answered
 * only when its Host — and its Origin, when a browser sent one — names this server: the host of
 * PUBLIC_URL, or a loopback name (localhost, 127.0.0.1, [::1]; any port: a
 * reverse proxy or a local client on this machine). A page on another site that got its name to
 * resolve to this server sends its own name in both, and gets a 403.
 */

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function hostnameOf(value: string, scheme: boolean): string | undefined {
  try {
    return new URL(scheme ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function allowedHostnames(publicUrls: readonly (string | undefined)[]): Set<string> {
  const names = new Set(LOOPBACK);
  for (const url of publicUrls) if (url) names.add(new URL(url).hostname.toLowerCase());
  return names;
}

/** Why a request is refused (a sentence for the 403's body), or undefined when Host and Origin are ours. */
export function rebindingRefusal(
  host: string | undefined,
  origin: string | undefined,
  allowed: ReadonlySet<string>,
): string | undefined {
  const hostname = host ? hostnameOf(host, false) : undefined;
  if (!hostname || !allowed.has(hostname)) return `Host ${host ?? "(none)"} is not this server`;
  if (origin !== undefined && origin !== "null") {
    const from = hostnameOf(origin, true);
    if (!from || !allowed.has(from)) return `Origin ${origin} is not this server`;
  } else if (origin === "null") {
    return "Origin null is not this server";
  }
  return undefined;
}
