import { afterAll, beforeAll, describe, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { checkBulkReplay } from "../helpers/bulk-replay.ts";

describe("a rebuild with the bulk loaders equals one applying every event (PGlite)", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());
  it("fixed and random logs of every kind of event, odd ones included", async () => {
    await checkBulkReplay(db, 10);
  }, 600_000);
});
