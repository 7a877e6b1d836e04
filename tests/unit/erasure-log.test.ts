import { openPglite } from "../../events/db/pglite.ts";
import { erasureContract } from "../helpers/erasure-contract.ts";

erasureContract("PGlite", () => openPglite());
