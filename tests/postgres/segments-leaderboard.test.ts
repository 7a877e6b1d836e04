import { createTestDatabase } from "../helpers/postgres.ts";
import { leaderboardSuite } from "../helpers/leaderboard-suite.ts";

/**
 * The leaderboard read model against a brute-force board on PostgreSQL (tests/helpers/leaderboard-suite.ts):
 * the same statements plan differently there (PostgreSQL 15 once JIT-compiled the follow/club boards).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
leaderboardSuite("PostgreSQL", async () => {
  database = await createTestDatabase();
  return { databaseUrl: database.url };
}, async () => {
  await database?.drop();
});
