import { openPglite } from "../../events/db/pglite.ts";
import { storeContract } from "../helpers/store-contract.ts";

storeContract("PGlite", () => openPglite());
