/**
 * Log lines written in batches: one console write per 20 ms instead of one per request. A write
 * per request cost 14 % of the server's CPU under load (profile in docs/bench-profiles.md); a
 * batch costs one. Lines keep their order; what is pending is written when the process exits
 * normally (a SIGKILL loses at most the last 20 ms of lines, never an event: events are in the log).
 */
export function batchedLines(write: (text: string) => void = (text) => console.log(text), everyMs = 20): (line: string) => void {
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join("\n");
    pending = [];
    write(text);
  };
  onExit(flush);
  return (line) => {
    pending.push(line);
    if (pending.length >= 1_000) return flush();
    timer ??= setTimeout(flush, everyMs);
    // Never keep the process alive just to write a log line.
    const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
    if (typeof timer === "number") deno?.unrefTimer?.(timer);
    else (timer as { unref?: () => void }).unref?.();
  };
}

function onExit(flush: () => void) {
  const g = globalThis as { process?: { on?: (e: string, f: () => void) => void }; addEventListener?: (e: string, f: () => void) => void; Deno?: unknown };
  if (g.Deno && g.addEventListener) g.addEventListener("unload", flush);
  else g.process?.on?.("exit", flush);
}
