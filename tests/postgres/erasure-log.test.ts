import { afterAll, beforeAll } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import { erasureContract } from "../helpers/erasure-contract.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

erasureContract("PostgreSQL", () => openPostgres(database.url));
