import { afterAll, beforeAll, describe, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { checkEffortBoardCounts } from "../helpers/effort-board-counts.ts";

describe("effortBoardCounts (ranking once per segment from the board counts), and the boards it reads", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());

  it("equals counting the efforts one by one; the boards equal a rebuild from the efforts", async () => {
    await checkEffortBoardCounts(db, 60);
  }, 120_000);
});
