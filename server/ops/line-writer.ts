/**
 * Log lines written in batches: one write to stdout per BATCH_MS instead of one per request. A
 * synchronous `console.log` per request was the largest single item of the server's main thread
 * under load (14 % of its CPU profile on GET /v3/activities/:id, 19 % during uploads:
 * docs/bench-profiles.md); a batch costs one write for all the lines of its 20 ms. Lines keep their
 * order. What is pending is written when the process exits (Deno's `unload`, which `Deno.exit` and
 * `process.exit` dispatch; Node's `exit`): a SIGKILL loses at most the last 20 ms of lines, never an
 * event (events are in the log, each with its request id).
 *
 * A batch is written from a timer, so it can run while a request awaits its WAL sync (the sync runs
 * on another thread). That is harmless for durability: the response still waits for the sync. It
 * only makes strace print the sync split in two lines ("fdatasync(…) <unfinished ...>" and
 * "<... fdatasync resumed>)    = 0"), which tests/proof/durability.test.ts reads as a sync.
 */
export const BATCH_MS = 20;
/** A batch is written at once when it reaches this many lines. */
const BATCH_LINES = 1_000;

/**
 * A function that queues a line for `write` (by default console.log, i.e. stdout). Every caller of
 * the default shares one batch (one exit hook per process, however many apps a process creates).
 */
export function batchedLines(write?: (text: string) => void, everyMs = BATCH_MS): (line: string) => void {
  if (write === undefined) return stdoutLines ??= batch((text) => console.log(text), BATCH_MS);
  return batch(write, everyMs);
}

let stdoutLines: ((line: string) => void) | undefined;

function batch(write: (text: string) => void, everyMs: number): (line: string) => void {
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join("\n");
    pending = [];
    write(text);
  };
  onExit(flush);
  return (line) => {
    pending.push(line);
    if (pending.length >= BATCH_LINES) return flush();
    if (timer !== undefined) return;
    timer = setTimeout(flush, everyMs);
    // Never keep the process alive just to write a log line.
    const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
    if (typeof timer === "number") deno?.unrefTimer?.(timer);
    else (timer as { unref?: () => void }).unref?.();
  };
}

function onExit(flush: () => void) {
  const g = globalThis as {
    process?: { on?: (e: string, f: () => void) => void };
    addEventListener?: (e: string, f: () => void) => void;
    Deno?: unknown;
  };
  if (g.Deno && g.addEventListener) g.addEventListener("unload", flush);
  else g.process?.on?.("exit", flush);
}
