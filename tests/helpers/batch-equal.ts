import type { Db } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import type { Projection } from "../../projections/projection.ts";

/**
 * A projection's read model after `log` applied event by event (schema one_by_one) and through its
 * applyBatch (schema batched), each dumped by `dump` (a select naming its table unqualified).
 */
export async function appliedBothWays(
  db: Db,
  projection: Projection,
  log: StoredEvent[],
  dump: string,
): Promise<{ single: unknown[]; batched: unknown[] }> {
  for (const schema of ["one_by_one", "batched"]) {
    await db.exec(`create schema ${schema}; set search_path to ${schema}; ${projection.schema}`);
  }
  await db.transaction(async (tx) => {
    await tx.exec("set local search_path to one_by_one");
    for (const e of log) await projection.apply(tx, e);
  });
  await db.transaction(async (tx) => {
    await tx.exec("set local search_path to batched");
    await projection.applyBatch!(tx, log);
  });
  const read = (schema: string) =>
    db.transaction(async (tx) => {
      await tx.exec(`set local search_path to ${schema}`);
      return await tx.query(dump);
    });
  return { single: await read("one_by_one"), batched: await read("batched") };
}
