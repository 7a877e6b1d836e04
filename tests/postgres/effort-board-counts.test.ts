import { afterAll, beforeAll, describe, it } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import type { Db } from "../../events/db/types.ts";
import { createTestDatabase } from "../helpers/postgres.ts";
import { checkEffortBoardCounts } from "../helpers/effort-board-counts.ts";

describe("effortBoardCounts and the boards it reads, on PostgreSQL", () => {
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

  it("equals counting the efforts one by one; the boards equal a rebuild from the efforts", async () => {
    await checkEffortBoardCounts(db, 30);
  }, 300_000);
});
