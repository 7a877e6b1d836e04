import { activityDetailCacheSuite } from "../helpers/activity-detail-cache-suite.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

/** GET /v3/activities/:id's kept answer on PostgreSQL: the same suite as on the embedded store. */
let database: { url: string; drop(): Promise<void> } | undefined;
activityDetailCacheSuite({
  async open() {
    database = await createTestDatabase();
    return { databaseUrl: database.url };
  },
  close: async () => await database?.drop(),
});
