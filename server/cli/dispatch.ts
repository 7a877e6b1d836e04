import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DomainError } from "../../events/decider.ts";
import { toJson } from "../../shared/json.ts";
import type { Platform } from "../platform.ts";
import { type CliCommand, type CliIo, CliUsageError, NoStoreError } from "./command.ts";
import { allCommands } from "../cli-commands.ts";

export interface CliOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function usage(command: CliCommand): string {
  const arg = command.positional ? ` <${command.positional.name}>` : "";
  const lines = [`Usage: npm run cli -- ${command.name}${arg} [options]`, "", command.summary, "", "Options:"];
  if (command.positional) {
    lines.splice(4, 0, "Arguments:", `  <${command.positional.name}>`.padEnd(34) + command.positional.description, "");
  }
  for (const [name, spec] of Object.entries(command.options)) {
    const arg = spec.type === "string" ? ` <${name.split("-").pop()}>` : "";
    lines.push(`  --${name}${arg}`.padEnd(34) + `${spec.description}${spec.required ? " (required)" : ""}`);
  }
  lines.push("  --json".padEnd(34) + "print the result as one JSON object");
  lines.push("  --help".padEnd(34) + "show this help");
  return lines.join("\n");
}

function overview(commands: CliCommand[]): string {
  const lines = ["Usage: npm run cli -- <command> [options]   (same as: deno task cli <command>)", "", "Commands:"];
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  for (const c of commands) lines.push(`  ${c.name.padEnd(width)}${c.summary}`);
  lines.push("", "Every command takes --help and --json. Works whether or not the server is running.");
  return lines.join("\n");
}

function defaultFormat(result: unknown): string {
  if (result && typeof result === "object" && !Array.isArray(result)) {
    return Object.entries(result as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${typeof v === "object" ? toJson(v) : String(v)}`)
      .join("\n");
  }
  return toJson(result);
}

export function findCommand(argv: string[], commands = allCommands): { command?: CliCommand; rest: string[] } {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith("-")) break;
    words.push(arg);
  }
  for (let n = words.length; n > 0; n--) {
    const name = words.slice(0, n).join(" ");
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(n) };
  }
  return { rest: argv };
}

/**
 * argv with every file path of the command (options and positional marked `path`) made absolute
 * against cwd: a command run inside the server (through the admin endpoint) then reads and writes
 * the files the user meant, whatever the server's own directory.
 */
export function withAbsolutePaths(argv: string[], cwd: string, commands = allCommands): string[] {
  const { command, rest } = findCommand(argv, commands);
  if (!command) return argv;
  const head = argv.slice(0, argv.length - rest.length);
  const out: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
      const spec = command.options[name];
      if (spec?.type === "string") {
        if (inline !== undefined) {
          out.push(spec.path ? `--${name}=${resolve(cwd, inline)}` : arg);
        } else {
          out.push(arg);
          if (i + 1 < rest.length) out.push(spec.path ? resolve(cwd, rest[++i]) : rest[++i]);
        }
        continue;
      }
      out.push(arg);
      continue;
    }
    out.push(command.positional?.path && !arg.startsWith("-") ? resolve(cwd, arg) : arg);
  }
  return [...head, ...out];
}

/** Parses argv, runs the command on a platform, and says what to print and the exit code. */
export async function dispatch(
  argv: string[],
  withPlatform: <T>(fn: (platform: Platform) => Promise<T>) => Promise<T>,
  io: CliIo,
  commands = allCommands,
): Promise<CliOutcome> {
  const { command, rest } = findCommand(argv, commands);
  if (!command) {
    const help = argv.length === 0 || argv.includes("--help") || argv[0] === "help";
    return {
      exitCode: help ? 0 : 2,
      stdout: help ? overview(commands) : "",
      stderr: help ? "" : `unknown command: ${argv.join(" ")}\n\n${overview(commands)}`,
    };
  }
  let values: Record<string, unknown>;
  try {
    const parsed = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(
          Object.entries(command.options).map(([k, s]) => [k, { type: s.type, multiple: s.multiple ?? false }]),
        ),
        json: { type: "boolean" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: !!command.positional,
    });
    values = parsed.values as Record<string, unknown>;
    if (command.positional) {
      if (parsed.positionals.length > 1) throw new Error(`unexpected argument ${parsed.positionals[1]}`);
      if (parsed.positionals.length === 1) values = { ...values, [command.positional.name]: parsed.positionals[0] };
    }
  } catch (error) {
    return { exitCode: 2, stdout: "", stderr: `${(error as Error).message}\n\n${usage(command)}` };
  }
  if (values.help) return { exitCode: 0, stdout: usage(command), stderr: "" };
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && (values[name] === undefined || values[name] === "")) {
      return { exitCode: 2, stdout: "", stderr: `--${name} is required\n\n${usage(command)}` };
    }
  }
  try {
    const standalone = command.standalone;
    const result = standalone
      ? await standalone(values, io)
      : await withPlatform((platform) => command.run(platform, values, io));
    const failed = !!result && typeof result === "object" && (result as { ok?: unknown }).ok === false;
    const text = values.json ? toJson(result) : (command.format ?? defaultFormat)(result);
    return { exitCode: failed ? 1 : 0, stdout: text, stderr: "" };
  } catch (error) {
    if (error instanceof NoStoreError) return { exitCode: 2, stdout: "", stderr: error.message };
    if (error instanceof CliUsageError) {
      return { exitCode: 2, stdout: "", stderr: `${error.message}\n\n${usage(command)}` };
    }
    if (error instanceof DomainError) {
      const body = {
        message: error.message,
        errors: [{ resource: error.resource, field: error.field, code: error.code }],
      };
      return { exitCode: 1, stdout: values.json ? toJson({ error: body }) : "", stderr: `error: ${error.message}` };
    }
    return { exitCode: 1, stdout: "", stderr: `error: ${(error as Error).message}` };
  }
}
