import { describe, it } from "vitest";
import { freshPostgresDb } from "../helpers/postgres.ts";
import { checkBulkReplay } from "../helpers/bulk-replay.ts";

describe("a rebuild with the bulk loaders equals one applying every event, on PostgreSQL", () => {
  const postgres = freshPostgresDb();
  it("fixed and random logs of every kind of event, odd ones included", async () => {
    await checkBulkReplay(postgres.db(), 12);
  }, 600_000);
});
