import { existsSync, fsyncSync } from "node:fs";
import { join } from "node:path";
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
      // A name that is not there, answered without an lstat: on Deno, node:fs's lstatSync of a
      // missing path builds a thrown NotFound error and its Node form (≈ 26 µs deep in
      // PostgreSQL's stack, against ≈ 3 µs for existsSync), and PostgreSQL probes missing files
      // all the time (a relation's free-space map and TOAST forks, a new relation's file number,
      // each fork at commit): 5 % of a replay's CPU. What existsSync does not see (no entry, a
      // dangling link, a directory we may not search) is ENOENT, as the data directory holds none
      // of the other two.
      const lookup = nodefs.node_ops.lookup;
      let missing: unknown;
      nodefs.node_ops.lookup = function (parent: Any, name: string) {
        if (!existsSync(join(nodefs.realPath(parent), name))) throw (missing ??= new mod.FS.ErrnoError(44));
        return lookup.call(this, parent, name);
      };
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
