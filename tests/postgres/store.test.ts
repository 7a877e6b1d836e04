import { afterAll, beforeAll } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import { storeContract } from "../helpers/store-contract.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

storeContract("PostgreSQL", () => openPostgres(database.url));
