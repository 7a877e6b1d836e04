// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { refusalText, type ToolContext, ToolError } from "./call-route.ts";
import type { Tool } from "./tool.ts";
import { MCP_TOOLS } from "./tools/index.ts";

/** What the server tells a model about itself at initialize. */
export const INSTRUCTIONS =
  "This is the athlete's own training log (a self-hosted, Strava-compatible platform). Start with get_profile; " +
  "list_activities finds activities by date, sport and name, and its ids go to get_activity and " +
  "get_activity_streams. Distances are metres, times seconds (with h:mm:ss beside them), speeds m/s; local " +
  "times are where the activity happened, with the IANA time zone named. Write tools need the write scope.";

/** A tool's answer: the structured content and the same as text (MCP 2025-06-18). */
function answer(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: "text", text }] };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** Runs a tool; every refusal is a tool error saying what to change, never an HTTP error. */
async function runTool(tool: Tool, ctx: ToolContext, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const { structured, text } = await tool.run(ctx, args as never);
    return answer(structured as Record<string, unknown>, text);
  } catch (error) {
    if (error instanceof ToolError) return toolError(error.message);
    if (error instanceof RangeError) return toolError(`Invalid arguments: ${error.message}.`);
    const refused = refusalText(error);
    if (refused) return toolError(refused);
    console.error(`[${ctx.requestId}] MCP tool ${tool.name}: ${(error as Error)?.stack ?? error}`);
    return toolError(`The server failed while answering ${tool.name} (request ${ctx.requestId}); try again later.`);
  }
}

/**
 * The MCP server for one request (stateless Streamable HTTP: every POST gets its own, as the SDK
 * recommends behind several servers — nothing is kept between requests): the tools, each
 * answering as the token's athlete.
 */
export function mcpServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer(
    { name: "fitness-training-log", title: "Training log", version },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of MCP_TOOLS) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.write ? `${tool.description} Changes the athlete's log.` : tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: {
        title: tool.title,
        readOnlyHint: !tool.write,
        destructiveHint: tool.destructive ?? false,
        idempotentHint: tool.idempotent,
        openWorldHint: false,
      },
    }, (args: Record<string, unknown>) => runTool(tool, ctx, args));
  }
  return server;
}
