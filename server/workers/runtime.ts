/**
 * One worker of the runtime the server runs on: a Web Worker on Deno (what ships), a worker_threads
 * thread on Node (the tests run the server in-process on Node, where TypeScript workers can't be
 * loaded as they are: the entry point is bundled once per process with esbuild, a dev dependency
 * of the test tooling, and run from memory).
 */
import { cpus } from "node:os";
import { Worker as NodeWorker } from "node:worker_threads";

export interface RuntimeWorker {
  post(message: unknown, transfer?: ArrayBuffer[]): void;
  terminate(): void;
}

export interface WorkerEvents {
  message(data: unknown): void;
  /** The worker died (an uncaught error, out of memory): whatever it was doing is lost. */
  failed(error: Error): void;
}

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

/** Cores of this machine (at least 1). */
export function coreCount(): number {
  const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ??
    cpus().length;
  return Math.max(1, Number.isFinite(n) ? n : 1);
}

/** Each worker entry's bundle, by its URL (the derive worker's, the image worker's). */
const nodeBundles = new Map<string, Promise<string>>();

/** The worker entry bundled into one CommonJS script (Node only). */
function bundleForNode(entry: URL): Promise<string> {
  const known = nodeBundles.get(entry.href);
  if (known) return known;
  const nodeBundle = (async () => {
    const name = "esbuild"; // resolved at run time: only the Node test harness needs it
    const esbuild = await import(name) as {
      build(options: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>;
    };
    const result = await esbuild.build({
      entryPoints: [decodeURIComponent(entry.pathname)],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      write: false,
      logLevel: "silent",
    });
    return result.outputFiles[0].text;
  })();
  nodeBundles.set(entry.href, nodeBundle);
  nodeBundle.catch(() => nodeBundles.delete(entry.href));
  return nodeBundle;
}

/** Starts a worker running the module at `entry`. */
export async function startWorker(entry: URL, events: WorkerEvents): Promise<RuntimeWorker> {
  if (isDeno) {
    const worker = new Worker(entry.href, { type: "module" });
    worker.onmessage = (event: MessageEvent) => events.message(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      events.failed(new Error(event.message || "the worker stopped"));
    };
    worker.onmessageerror = () => events.failed(new Error("a worker message could not be read"));
    return {
      post: (message, transfer = []) => worker.postMessage(message, transfer),
      terminate: () => worker.terminate(),
    };
  }
  const code = await bundleForNode(entry);
  const worker = new NodeWorker(code, { eval: true });
  worker.unref();
  worker.on("message", (data) => events.message(data));
  worker.on("error", (error) => events.failed(error instanceof Error ? error : new Error(String(error))));
  worker.on("exit", (code) => {
    if (code !== 0) events.failed(new Error(`the worker exited with code ${code}`));
  });
  return {
    post: (message, transfer = []) => worker.postMessage(message, transfer),
    terminate: () => void worker.terminate(),
  };
}
