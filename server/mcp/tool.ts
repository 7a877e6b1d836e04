import type { z } from "zod";
import type { ToolContext } from "./call-route.ts";

/**
 * One MCP tool: JSON Schema input and output (zod shapes the SDK turns into JSON Schema), MCP
 * annotations, and `run`, which answers through the API route it stands for (call-route.ts) and
 * returns the structured answer with a readable text beside it.
 */
export interface Tool<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** A write: needs the write scope, changes the log (an event through the command seam). */
  write: boolean;
  /** MCP annotations (hints for the client: whether it reads, destroys, can be repeated). */
  idempotent: boolean;
  destructive?: boolean;
  run(ctx: ToolContext, args: z.infer<z.ZodObject<I>>): Promise<{ structured: z.infer<z.ZodObject<O>>; text: string }>;
}

/** Declares a tool (typed by its shapes). */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: Tool<I, O>): Tool {
  return tool as unknown as Tool;
}
