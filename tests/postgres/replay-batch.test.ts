import { describe, it } from "vitest";
import { freshPostgresDb } from "../helpers/postgres.ts";
import { checkMixedLogs } from "../helpers/replay-batch.ts";

describe("batched replay equals one-by-one application, on PostgreSQL", () => {
  const postgres = freshPostgresDb();
  it("mixed logs of creations, edits, kudos, comments, deletions, follows and joins", async () => {
    await checkMixedLogs(postgres.db(), 12);
  }, 300_000);
});
