import { describe, it } from "vitest";
import { freshPostgresDb } from "../helpers/postgres.ts";
import { checkEffortBoardCounts } from "../helpers/effort-board-counts.ts";

describe("effortBoardCounts and the boards it reads, on PostgreSQL", () => {
  const postgres = freshPostgresDb();

  it("equals counting the efforts one by one; the boards equal a rebuild from the efforts", async () => {
    await checkEffortBoardCounts(postgres.db(), 30);
  }, 300_000);
});
