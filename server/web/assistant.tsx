import type { Context } from "hono";
import { mcpResourceUrl } from "../oauth/resource.ts";
import { MCP_TOOLS } from "../mcp/tools/index.ts";
import type { Platform } from "../platform.ts";
import { web } from "./context.tsx";

/**
 * GET /settings/assistant, "Connect your AI assistant": the address to paste, how it goes in the
 * assistants people use, what each permission on the consent page allows (the tools it opens),
 * and how to take it back. Readable signed out too (it is documentation); docs/mcp.md says the same.
 */

const READ_TOOLS = MCP_TOOLS.filter((t) => !t.write);
const WRITE_TOOLS = MCP_TOOLS.filter((t) => t.write);

function desktopConfig(url: string): string {
  return JSON.stringify(
    { mcpServers: { "training-log": { command: "npx", args: ["-y", "mcp-remote", url] } } },
    null,
    2,
  );
}

export async function assistantPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  const url = mcpResourceUrl(platform.config.publicUrl);
  const https = url.startsWith("https://");
  return w.render(
    "Connect your AI assistant",
    <>
      <div class="card">
        <h1>Connect your AI assistant</h1>
        <p>
          Your assistant (Claude, ChatGPT or any client of the Model Context Protocol) can read your training log and,
          if you allow it, change it — with the same privacy as the API: another athlete's private activities and the
          points inside privacy zones never reach it.
        </p>
        <label for="mcp-url">The address to paste</label>
        <p>
          <input type="text" id="mcp-url" value={url} readonly />
        </p>
        <p class="hint">
          You sign in on this site, not in the assistant, and choose there what it may do.
          {https
            ? ""
            : " This server is not on https: assistants that connect from their own servers (claude.ai, ChatGPT) need a public https address; mcp-remote on your own computer works with this one."}
        </p>
      </div>
      <div class="card">
        <h2>In your assistant</h2>
        <h3>Claude (claude.ai, Claude Desktop)</h3>
        <p>
          Settings → Connectors → Add custom connector; paste the address, then Connect. A window of this site opens:
          sign in and choose what to allow.
        </p>
        <h3>ChatGPT</h3>
        <p>
          Settings → Apps &amp; Connectors → Advanced settings: turn on developer mode, then Create; paste the address
          with OAuth as the authentication. Sign in here when asked.
        </p>
        <h3>Any other MCP client</h3>
        <p>
          Clients that speak Streamable HTTP with OAuth take the address as it is. One that only starts local servers
          reaches it through mcp-remote, e.g. in Claude Desktop's claude_desktop_config.json:
        </p>
        <pre id="mcp-remote-config">{desktopConfig(url)}</pre>
      </div>
      <div class="card">
        <h2>What you can allow</h2>
        <ul class="scopes">
          <li>
            <strong>Read</strong> (always): your profile and totals, your public activities, segments, clubs and routes.
          </li>
          <li>
            <strong>Private activities</strong>{" "}
            (activity:read_all): also your private activities and their data inside your privacy zones.
          </li>
          <li>
            <strong>Changes</strong>{" "}
            (activity:write): rename, describe and change the sport of your activities, add manual activities, give
            kudos and comment, in your name.
          </li>
        </ul>
        <p class="hint">Tools that read: {READ_TOOLS.map((t) => t.title).join(", ")}.</p>
        <p class="hint">
          Tools that change your log (only with Changes allowed): {WRITE_TOOLS.map((t) => t.title).join(", ")}.
        </p>
      </div>
      <div class="card">
        <h2>Taking it back</h2>
        <p>
          Every assistant you connected is listed on <a href="/settings/apps">Connected apps</a>{" "}
          as “AI assistant connected through /mcp”. Revoke stops it at once: its tokens no longer work, and it has to
          ask you again.
        </p>
      </div>
    </>,
  );
}
