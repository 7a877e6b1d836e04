import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/**
 * A PostgreSQL server of the test's own — its own data directory and port — for tests that stop
 * and start the database (the shared cluster on 5432 is other suites'). initdb and postgres refuse
 * to run as root: as root (CI), they run as the `postgres` OS user, which owns the directory.
 */
export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/<db> */
  url(database?: string): string;
  port: number;
  dataDir: string;
  /** Stops the server: "fast" (clients disconnected, a checkpoint) or "immediate" (like a crash). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same directory and port; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

/** The newest PostgreSQL's binaries on this machine (Debian: /usr/lib/postgresql/<version>/bin). */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => +a - +b) : [];
  if (!versions.length) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql");
  return join(root, versions[versions.length - 1], "bin");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** uid/gid to run PostgreSQL as: the `postgres` user when we are root, else ourselves. */
function runAs(): { uid?: number; gid?: number } {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return {};
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

export async function startOwnPostgres(
  options: { settings?: Record<string, string> } = {},
): Promise<OwnPostgres> {
  const bin = binDir();
  const user = runAs();
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-own-pg-"));
  if (user.uid !== undefined) chownSync(dataDir, user.uid, user.gid!);
  execFileSync(join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"], {
    ...user,
    stdio: "pipe",
    env: { ...process.env, LC_ALL: "C" },
  });
  const port = await freePort();
  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: dataDir,
    max_connections: "200",
    shared_buffers: "64MB",
    fsync: "on",
    ...options.settings,
  };
  let child: ChildProcess | undefined;
  let log = "";

  async function start(): Promise<void> {
    const args = ["-D", dataDir, ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
    const proc = spawn(join(bin, "postgres"), args, { ...user, stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    proc.stdout!.on("data", (d) => (log += d));
    proc.stderr!.on("data", (d) => (log = (log + d).slice(-20_000)));
    const until = Date.now() + 60_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited (${proc.exitCode}):\n${log}`);
      try {
        execFileSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-q"], { stdio: "ignore" });
        return;
      } catch {
        if (Date.now() > until) throw new Error(`postgres did not start:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once("exit", () => r()));
    // PostgreSQL's shutdown signals: SIGINT = fast, SIGQUIT = immediate.
    proc.kill(mode === "fast" ? "SIGINT" : "SIGQUIT");
    await exited;
  }

  await start();
  return {
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    port,
    dataDir,
    stop,
    start,
    async destroy() {
      await stop("immediate");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
