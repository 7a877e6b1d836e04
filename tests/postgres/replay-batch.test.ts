import { afterAll, beforeAll, describe, it } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import type { Db } from "../../events/db/types.ts";
import { createTestDatabase } from "../helpers/postgres.ts";
import { checkMixedLogs } from "../helpers/replay-batch.ts";

describe("batched replay equals one-by-one application, on PostgreSQL", () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    db = await openPostgres(created.url);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  it("mixed logs of creations, edits, kudos, comments, deletions, follows and joins", async () => {
    await checkMixedLogs(db, 12);
  }, 300_000);
});
