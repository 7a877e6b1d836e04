import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * A Model Context Protocol client over stdio, as an AI assistant's host speaks to a local MCP server:
 * the server is a child process, each JSON-RPC 2.0 message one line on its stdin/stdout
 * (initialize, notifications/initialized, tools/list, tools/call). What the server writes to stderr
 * is kept for failure messages.
 */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

export interface McpCallResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

export interface McpClient {
  tools(): Promise<McpTool[]>;
  call(name: string, args: Record<string, unknown>): Promise<McpCallResult>;
  stderr(): string;
  close(): Promise<void>;
}

export async function startMcpServer(command: string, args: string[], env: Record<string, string>): Promise<McpClient> {
  const child: ChildProcess = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  let errors = "";
  child.stderr!.on("data", (d) => (errors += d));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.on("exit", (code) => {
    for (const p of pending.values()) p.reject(new Error(`MCP server exited (${code}): ${errors.slice(-2000)}`));
    pending.clear();
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let message: { id?: number; result?: unknown; error?: { message: string } };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(`MCP error: ${message.error.message}`));
    else waiting.resolve(message.result);
  });
  let next = 1;
  const request = (method: string, params: unknown, timeout = 120_000) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method}: no answer in ${timeout} ms; stderr: ${errors.slice(-2000)}`));
      }, timeout);
      pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request("initialize", {
    protocolVersion: "2024-11-05",
    capabilities: {},
    clientInfo: { name: "fitness-platform-tests", version: "1" },
  });
  child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return {
    tools: async () => ((await request("tools/list", {})) as { tools: McpTool[] }).tools,
    call: async (name, args) => (await request("tools/call", { name, arguments: args })) as McpCallResult,
    stderr: () => errors,
    async close() {
      child.stdin!.end();
      child.kill("SIGTERM");
      await exited;
    },
  };
}
