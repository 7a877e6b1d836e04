import { writeFileSync } from "node:fs";

/**
 * A CPU profile of a Deno server's main thread (its event loop; workers are other isolates),
 * taken over the V8 inspector the server was started with (`deno run --inspect=host:port`).
 * Used by the uploads bench (BENCH_UPLOADS_PROFILE=dir) to show what remains on the event loop.
 */
export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface MainThreadProfiler {
  start(): Promise<void>;
  stop(): Promise<CpuProfile>;
  close(): void;
}

/** Connects to the inspector at host:port (the first target: the main isolate). */
export async function connectProfiler(hostPort: string): Promise<MainThreadProfiler> {
  let targets: { webSocketDebuggerUrl: string }[] = [];
  for (let i = 0; i < 50 && targets.length === 0; i++) {
    try {
      targets = await (await fetch(`http://${hostPort}/json/list`)).json();
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!targets.length) throw new Error(`no inspector at ${hostPort}`);
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("inspector connection failed"));
  });
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id !== undefined) {
      pending.get(msg.id)?.(msg.error ? Promise.reject(new Error(JSON.stringify(msg.error))) : msg.result);
    }
  };
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (r: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 500 });
  return {
    start: () => send("Profiler.start"),
    stop: async () => (await send<{ profile: CpuProfile }>("Profiler.stop")).profile,
    close: () => ws.close(),
  };
}

/** Busy milliseconds (everything but idle, program and GC markers split out) and the top functions by self time. */
export function summarizeProfile(
  profile: CpuProfile,
  top = 20,
): { busyMs: number; gcMs: number; wallMs: number; rows: { name: string; ms: number }[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const byName = new Map<string, number>();
  let busyMs = 0;
  let gcMs = 0;
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === "(idle)") continue;
    busyMs += ms;
    if (f.functionName === "(garbage collector)") gcMs += ms;
    const file = f.url.replace(/^.*\/(wt\/[^/]+|node_modules)\//, "");
    const name = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
    byName.set(name, (byName.get(name) ?? 0) + ms);
  }
  const rows = [...byName].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms).slice(0, top);
  return { busyMs, gcMs, wallMs: (profile.endTime - profile.startTime) / 1000, rows };
}

export function saveProfile(path: string, profile: CpuProfile): void {
  writeFileSync(path, JSON.stringify(profile));
}
