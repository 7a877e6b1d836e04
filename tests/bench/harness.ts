/** One benchmark figure: ours next to a baseline measured in the same run, and their ratio. */
export interface BenchFigure {
  suite: string;
  name: string;
  ours: number;
  /** The baseline (bare library, raw database) measured in the same run; omitted for targets-only figures. */
  baseline?: number;
  baselineName?: string;
  unit: string;
  /** Whether a larger value is better (rates) or worse (durations). */
  higherIsBetter: boolean;
  /** The target the issue sets, in words. */
  target?: string;
}

export type BenchSuite = (args: string[]) => Promise<BenchFigure[]>;

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString("en-US");
  return n.toPrecision(3);
}

/** Prints figures as a table; ratio = ours / baseline. */
export function printFigures(figures: BenchFigure[]): string {
  const lines = ["| suite | figure | ours | baseline | ratio | target |", "|---|---|---|---|---|---|"];
  for (const f of figures) {
    const baseline = f.baseline === undefined
      ? "—"
      : `${fmt(f.baseline)} ${f.unit}${f.baselineName ? ` (${f.baselineName})` : ""}`;
    const ratio = f.baseline ? `${(f.ours / f.baseline).toFixed(2)}×` : "—";
    lines.push(`| ${f.suite} | ${f.name} | ${fmt(f.ours)} ${f.unit} | ${baseline} | ${ratio} | ${f.target ?? ""} |`);
  }
  return lines.join("\n");
}

/** Median and 99th percentile of samples. */
export function percentiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p99: at(0.99) };
}
