import type { Queryable } from "./types.ts";

/**
 * Row-for-row copies of operational tables between two stores (cli copy-store): each owner reads
 * its rows as JSON text (`select row_to_json(t)::text as row from <its table> t`) and writes them
 * back with `json_populate_recordset`, a batch per statement.
 */

/**
 * Rows read as JSON text (`select row_to_json(t)::text as row …`), as JSON arrays of up to 1000
 * rows: what one `json_populate_recordset` insert of a row-for-row copy takes.
 */
export function jsonArrays(rows: { row: string }[], size = 1000): string[] {
  const batches: string[] = [];
  for (let i = 0; i < rows.length; i += size) batches.push(`[${rows.slice(i, i + size).map((r) => r.row).join(",")}]`);
  return batches;
}

/** Whether a table exists (a copy's source may predate some operational tables). */
export async function tableExists(db: Queryable, table: string): Promise<boolean> {
  const [row] = await db.query<{ found: string | null }>("select to_regclass($1)::text as found", [table]);
  return row.found !== null;
}
