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
      // A WAL file deleted or renamed (a checkpoint removing old segments): its sync descriptor goes.
      const nodeOps = nodefs.node_ops;
      const unlink = nodeOps.unlink;
      nodeOps.unlink = function (parent: Any, name: string) {
        const path = `${nodefs.realPath(parent)}/${name}`;
        if (WAL_DIR.test(path)) wal.forget(path);
        return unlink.call(this, parent, name);
      };
      const rename = nodeOps.rename;
      nodeOps.rename = function (node: Any, dir: Any, name: string) {
        for (const path of [nodefs.realPath(node), `${nodefs.realPath(dir)}/${name}`]) {
          if (WAL_DIR.test(path)) wal.forget(path);
        }
        return rename.call(this, node, dir, name);
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
