import { fsyncSync } from "node:fs";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { WalSync } from "./wal-sync.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const WAL_DIR = /[\\/]pg_wal[\\/]/;

/**
 * PGlite's Node file layer with real syncs. Its emscripten NODEFS has no fsync and its fdatasync
 * is a no-op, and PGlite starts PostgreSQL with fsync off (-F). Here PostgreSQL runs with fsync on,
 * its fsync reaches the disk (checkpoints, pg_control, new WAL segments and directories), and the
 * WAL it writes at commit is recorded for the host's group commit (WalSync).
 */
export class DurableNodeFS extends NodeFS {
  readonly wal = new WalSync();

  override async init(pg: Any, options: Any) {
    const result = await super.init(pg, options);
    const wal = this.wal;
    const opts = result.emscriptenOpts;
    opts.preRun = [...(opts.preRun ?? []), (mod: Any) => {
      const nodefs = mod.NODEFS;
      const ops = nodefs.stream_ops;
      const write = ops.write;
      ops.write = function (stream: Any, ...rest: unknown[]) {
        const n = write.call(this, stream, ...rest);
        if (stream.walName !== stream.node.name) {
          stream.walName = stream.node.name;
          const path: string = nodefs.realPath(stream.node);
          stream.walPath = WAL_DIR.test(path) ? path : null;
        }
        if (stream.walPath) wal.written(stream.walPath);
        return n;
      };
      ops.fsync = (stream: Any) => {
        wal.flushNow();
        if (stream.nfd !== undefined) nodefs.tryFSOperation(() => fsyncSync(stream.nfd));
        return 0;
      };
    }];
    return result;
  }
}

/** PGlite's start parameters with PostgreSQL's fsync left on (PGlite passes -F, fsync off). */
export function durableStartParams(defaults: string[]): string[] {
  return defaults.filter((p) => p !== "-F");
}
