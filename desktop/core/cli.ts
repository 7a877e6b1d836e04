/**
 * The headless companion: `npm run companion -- <command> [options]` (Deno; also runs on Node).
 *   watch    --server URL [--token TOKEN | --sign-in --client-id ID] [--folder DIR …] [--state DIR] [--json]
 *            [--volumes DIR …] [--no-volumes] [--ui] [--ui-port N] [--stability-ms N]
 *   sign-in  --server URL --client-id ID [--client-secret S] [--state DIR] [--no-browser]
 *   sign-out [--state DIR]
 *   status   [--state DIR] [--json]
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { toJson } from "../../shared/json.ts";
import type { TokenProvider } from "./api.ts";
import { Companion, type CompanionEvent } from "./companion.ts";
import { FileTokenStore, OAuthSession, signIn, StaticToken } from "./oauth.ts";
import { defaultStateDir, loadSettings, saveSettings } from "./settings.ts";
import { startUiServer } from "./ui-server.ts";

const USAGE = `Usage: npm run companion -- <command> [options]

  watch     Watch devices and folders and upload new activities
            --server URL            the platform (default: the saved setting)
            --token TOKEN           use this access token (needs write); otherwise the signed-in session
            --sign-in               sign in first when there is no session (needs --client-id)
            --folder DIR            also watch this folder (repeatable)
            --volumes DIR           look for devices under DIR instead of the platform's mount folders (repeatable)
            --no-volumes            don't look for devices, only --folder
            --state DIR             where the ledger and token live (default ${defaultStateDir()})
            --json                  one JSON object per line per file event
            --ui                    also serve the window's page on 127.0.0.1 and print its address
  sign-in   --server URL --client-id ID [--client-secret S] [--no-browser]
  sign-out  forget the saved session
  status    what the ledger holds ([--json])`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: "string" },
      token: { type: "string" },
      "sign-in": { type: "boolean" },
      "client-id": { type: "string" },
      "client-secret": { type: "string" },
      folder: { type: "string", multiple: true },
      volumes: { type: "string", multiple: true },
      "no-volumes": { type: "boolean" },
      state: { type: "string" },
      json: { type: "boolean" },
      ui: { type: "boolean" },
      "ui-port": { type: "string" },
      "stability-ms": { type: "string" },
      "no-browser": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  const stateDir = values.state ?? defaultStateDir();
  const settings = loadSettings(stateDir);
  const store = new FileTokenStore(join(stateDir, "token.json"));
  const server = values.server ?? settings.server ?? store.load()?.server;

  if (command === "sign-in" || (command === "watch" && values["sign-in"] && !values.token && !store.load())) {
    const clientId = values["client-id"] ?? settings.clientId;
    if (!server || !clientId) {
      console.error(
        "sign-in needs --server URL and --client-id ID (the id of the application registered for the companion).",
      );
      return 2;
    }
    try {
      const token = await signIn({
        server,
        clientId,
        clientSecret: values["client-secret"] ?? settings.clientSecret,
        open: (url) => {
          console.error(`Open this address to sign in:\n  ${url}`);
          if (!values["no-browser"]) openBrowser(url);
        },
      });
      store.save(token);
      saveSettings(stateDir, {
        ...settings,
        server,
        clientId,
        clientSecret: values["client-secret"] ?? settings.clientSecret,
      });
      console.error(
        `Signed in${
          token.athlete?.firstname ? ` as ${token.athlete.firstname} ${token.athlete.lastname ?? ""}`.trimEnd() : ""
        }.`,
      );
    } catch (error) {
      console.error((error as Error).message);
      return 1;
    }
    if (command === "sign-in") return 0;
  }
  if (command === "sign-out") {
    store.clear();
    console.error("Signed out.");
    return 0;
  }
  if (command === "status") {
    const { Ledger } = await import("./ledger.ts");
    const entries = Ledger.open(stateDir).entries();
    if (values.json) { for (const e of entries) console.log(JSON.stringify(e)); }
    else {for (const e of entries) {
        console.log(
          `${e.status.padEnd(10)} ${e.path}${e.activityId ? ` → activity ${e.activityId}` : ""}${
            e.error ? ` (${e.error})` : ""
          }`,
        );
      }}
    return 0;
  }
  if (command !== "watch") {
    console.error(`unknown command ${command}\n\n${USAGE}`);
    return 2;
  }
  if (!server) {
    console.error("watch needs --server URL (or sign in first).");
    return 2;
  }
  let tokens: TokenProvider;
  if (values.token) tokens = new StaticToken(values.token);
  else if (store.load()) tokens = new OAuthSession(store);
  else {
    console.error(
      "Not signed in: pass --token TOKEN, or run `npm run companion -- sign-in --server URL --client-id ID` first.",
    );
    return 2;
  }
  const companion = new Companion({
    server,
    tokens,
    stateDir,
    folders: [...settings.folders, ...(values.folder ?? [])],
    volumeRoots: values["no-volumes"] ? [] : values.volumes,
    stabilityMs: values["stability-ms"] ? Number(values["stability-ms"]) : undefined,
  });
  companion.on((event) => print(event, !!values.json));
  await companion.start();
  if (values.ui) {
    const ui = await startUiServer({ companion, stateDir, port: values["ui-port"] ? Number(values["ui-port"]) : 0 });
    console.error(`Window page: ${ui.url}`);
  }
  if (!values.json) {
    console.error(
      `Watching ${
        companion.state().devices.map((d) => d.folder).join(", ") || "(no device yet)"
      }; uploading to ${server}.`,
    );
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await companion.stop();
  return 0;
}

function print(event: CompanionEvent, json: boolean): void {
  if (json) {
    console.log(toJson(event));
    return;
  }
  const e = event as unknown as Record<string, string | undefined>;
  const what = e.path ?? e.folder;
  const detail = e.activity_id
    ? `activity ${e.activity_id} ${e.activity_url ?? ""}`
    : e.existing_activity_id
    ? `already activity ${e.existing_activity_id}`
    : e.message ?? e.status ?? "";
  console.log(`${(e.event ?? "").padEnd(16)} ${what} ${detail}`.trimEnd());
}

function openBrowser(url: string): void {
  const [cmd, args] = process.platform === "darwin"
    ? ["open", [url]]
    : process.platform === "win32"
    ? ["cmd", ["/c", "start", "", url]]
    : ["xdg-open", [url]];
  try {
    spawn(cmd as string, args as string[], { stdio: "ignore", detached: true }).on("error", () => {}).unref();
  } catch { /* the address is printed */ }
}

const isMain = (import.meta as { main?: boolean }).main ??
  (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href);
if (isMain) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (error) => {
    console.error((error as Error).message);
    process.exit(1);
  });
}
