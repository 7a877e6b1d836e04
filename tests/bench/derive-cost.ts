import FitParser from "fit-file-parser";
import process from "node:process";
import { parseDeviceFile } from "../../server/ingest/decode.ts";
import { deriveActivity, type DeriveContext } from "../../server/ingest/derive.ts";
import type { BenchFigure } from "./harness.ts";

/**
 * Issue #17: what decoding and deriving an upload costs next to decoding it bare. Measured in
 * process (the work a derive worker does, without the worker's message passing), rounds interleaved
 * so that the machine's load falls on both alike: each round decodes the file bare with
 * fit-file-parser, then parses it as the server does (`parseDeviceFile`: fit-file-parser plus the
 * mapping to samples) and derives every fact and stream (`deriveActivity`). The order of the two
 * alternates from round to round, so that neither always pays for the other's garbage. One round
 * first warms the code up, as the derive worker is warm after its first upload. Times are the
 * process's CPU time (on a shared machine wall-clock times swing two- to threefold with the load),
 * the fastest round of each.
 */
export const RATIO_BEFORE_NUMBERS_FIXES = 1.53;

/** CPU time of this process (all its threads: the collector's too) in ms: on a shared machine it
 * counts the work done, not the time spent waiting for a core. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const CONTEXT: DeriveContext = {
  uploadId: 1,
  externalId: null,
  activityType: null,
  defaultType: "Ride",
  name: null,
  description: null,
  visibility: "everyone",
  trainer: false,
  commute: false,
  athlete: { premium: true, weight: 72, birthdate: "1985-06-01", sex: null },
};

/** The code measured: the server's own unless another version is given (to compare with an older one). */
export interface DeriveCode {
  parse: (content: Uint8Array, dataType: "fit") => Promise<unknown>;
  derive: (parsed: never, ctx: DeriveContext) => { facts: { distance: number } };
}
const SERVER_CODE = { parse: parseDeviceFile, derive: deriveActivity } as unknown as DeriveCode;

export async function deriveCostFigures(
  label: string,
  bytes: Uint8Array,
  code: DeriveCode = SERVER_CODE,
): Promise<BenchFigure[]> {
  const rounds = Number(process.env.BENCH_DERIVE_ROUNDS ?? 15);
  const bare: number[] = [];
  const decode: number[] = [];
  const derive: number[] = [];
  const total: number[] = [];
  const bareDecode = async () => {
    const t0 = cpuMs();
    await new FitParser({ mode: "list", force: false }).parseAsync(bytes.slice().buffer as ArrayBuffer);
    return cpuMs() - t0;
  };
  for (let round = 0; round <= rounds; round++) {
    const bareFirst = round % 2 === 0;
    const b = bareFirst ? await bareDecode() : 0;
    const t1 = cpuMs();
    const parsed = await code.parse(bytes, "fit");
    const t2 = cpuMs();
    const derived = code.derive(parsed as never, CONTEXT);
    const t3 = cpuMs();
    if (!(derived.facts.distance > 0)) throw new Error("the bench ride derived no distance");
    const b2 = bareFirst ? b : await bareDecode();
    if (round === 0) continue; // warm-up
    bare.push(b2);
    decode.push(t2 - t1);
    derive.push(t3 - t2);
    total.push(t3 - t1);
  }
  const bareMs = Math.min(...bare);
  const deriveMs = Math.min(...derive);
  const ours = Math.min(...total);
  const ratio = ours / bareMs;
  // Before the fixes the figure was recorded as (bare decode + derive) / bare decode: the same here.
  const recordedWay = (bareMs + deriveMs) / bareMs;
  console.error(
    `uploads: ${label}: decode ${Math.min(...decode).toFixed(1)} ms + derive ${deriveMs.toFixed(1)} ms ` +
      `(fastest round ${ours.toFixed(1)} ms of CPU) = ${ratio.toFixed(2)}× the bare decode (${
        bareMs.toFixed(1)
      } ms); ` +
      `bare decode + derive = ${
        recordedWay.toFixed(2)
      }×, recorded before the numbers fixes ${RATIO_BEFORE_NUMBERS_FIXES}×`,
  );
  return [
    {
      suite: "uploads",
      name: `${label}: decode + derive (parseDeviceFile + deriveActivity, CPU, fastest of ${rounds})`,
      ours,
      baseline: bareMs,
      baselineName: "bare fit-file-parser decode",
      unit: "ms",
      higherIsBetter: false,
      target:
        `≤ ${RATIO_BEFORE_NUMBERS_FIXES}×, the ratio recorded before the numbers fixes as (bare decode + derive) / bare decode: ` +
        `${recordedWay.toFixed(2)}× that way now`,
    },
    {
      suite: "uploads",
      name: `${label}: derive alone (deriveActivity, CPU, fastest of ${rounds})`,
      ours: deriveMs,
      baseline: bareMs,
      baselineName: "bare fit-file-parser decode",
      unit: "ms",
      higherIsBetter: false,
    },
  ];
}
