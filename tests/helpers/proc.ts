import { readFileSync } from "node:fs";

/**
 * A Linux `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat` line: the thread's name and its
 * fields, numbered as in proc(5) (14 utime, 15 stime, 19 nice). The name is read between the first
 * "(" and the last ")", since it may itself hold spaces and parentheses.
 */
export function readProcStat(path: string): { name: string; field(n: number): number } {
  const stat = readFileSync(path, "utf8");
  const close = stat.lastIndexOf(")");
  const rest = stat.slice(close + 2).split(" ");
  return { name: stat.slice(stat.indexOf("(") + 1, close), field: (n) => Number(rest[n - 3]) };
}

/**
 * CPU seconds (user + system, clock ticks of 1/100 s) of a process's main thread (its event loop)
 * and of the whole process: not inflated by a loaded machine as wall times are.
 */
export function cpuSeconds(pid: number): { main: number; all: number } {
  const seconds = (path: string) => {
    const stat = readProcStat(path);
    return (stat.field(14) + stat.field(15)) / 100;
  };
  return { main: seconds(`/proc/${pid}/task/${pid}/stat`), all: seconds(`/proc/${pid}/stat`) };
}
