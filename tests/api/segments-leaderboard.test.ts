import { leaderboardSuite } from "../helpers/leaderboard-suite.ts";

/** The leaderboard read model against a brute-force board, on embedded PGlite (tests/helpers/leaderboard-suite.ts). */
leaderboardSuite("PGlite", async () => ({}));
