/** A node of PostgreSQL's `explain (analyze, format json)` plan, as far as the scans' reading goes. */
export interface PlanNode {
  "Node Type": string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/**
 * The rows a plan's table scans read (returned, or removed by a filter or a recheck, times their
 * loops; a bitmap index scan's rows are read again by its heap scan, so counted there) and each
 * scan's name.
 */
export function scannedRows(
  node: PlanNode,
  into = { rows: 0, scans: [] as string[] },
): { rows: number; scans: string[] } {
  if (/Scan/.test(node["Node Type"]) && node["Node Type"] !== "Bitmap Index Scan") {
    into.rows += ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) +
      (node["Rows Removed by Index Recheck"] ?? 0)) * (node["Actual Loops"] ?? 1);
    into.scans.push(`${node["Node Type"]} ${node["Index Name"] ?? node["Relation Name"] ?? ""}`.trim());
  }
  for (const child of node.Plans ?? []) scannedRows(child, into);
  return into;
}
