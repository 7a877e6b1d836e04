import { afterAll, beforeAll } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { nameSearchSuite } from "../helpers/activity-name-search.ts";

/** Issue 43: the name search's exact count and pages, and its reads through the trigram index, on PGlite. */
let db: Db;
beforeAll(async () => {
  db = await openPglite();
});
afterAll(() => db.close());
nameSearchSuite("PGlite", () => db);
