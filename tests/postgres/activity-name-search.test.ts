import { freshPostgresDb } from "../helpers/postgres.ts";
import { nameSearchSuite } from "../helpers/activity-name-search.ts";

/** Issue 43: the name search's exact count and pages, and its reads through the trigram index, on PostgreSQL. */
const postgres = freshPostgresDb();
nameSearchSuite("PostgreSQL", () => postgres.db());
