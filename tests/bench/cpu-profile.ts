import { writeFileSync } from "node:fs";

/**
 * A CPU profile of another Deno process started with `--inspect=127.0.0.1:<port>`, taken over the
 * Chrome DevTools protocol (Profiler domain), written as a `.cpuprofile` (open it in Chrome's
 * DevTools, or summarise it with `deno run -A tests/bench/cpu-profile.ts <file>`).
 * Benches set BENCH_PROFILE=<dir> to profile the server during their measured run.
 */
export async function startCpuProfile(inspectPort: number): Promise<{ stop(file: string): Promise<void> }> {
  let targets: { webSocketDebuggerUrl: string }[] = [];
  for (let i = 0; i < 100 && targets.length === 0; i++) {
    try {
      targets = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!targets.length) throw new Error(`no inspector on port ${inspectPort}`);
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  };
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      waiting.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 500 });
  await send("Profiler.start");
  return {
    async stop(file: string) {
      const result = await send("Profiler.stop") as { profile: unknown };
      writeFileSync(file, JSON.stringify(result.profile));
      ws.close();
    },
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time by function (top n), as percentages of the profile's samples. */
export function summarise(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] },
  n = 25,
): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((sample, i) => {
    const node = byId.get(sample)!;
    const f = node.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
    const dt = Math.max(0, profile.timeDeltas[i] ?? 0);
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([key, us]) =>
      `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`
    );
}

if (import.meta.main) {
  const { readFileSync } = await import("node:fs");
  const file = Deno.args[0];
  console.log(summarise(JSON.parse(readFileSync(file, "utf8")), Number(Deno.args[1] ?? 30)).join("\n"));
}
