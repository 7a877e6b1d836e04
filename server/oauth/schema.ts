import { z } from "zod";
import { int, model } from "../http/schema.ts";
import { zTokenAthlete } from "../athletes/schema.ts";

/** OAuth 2.0 answers (Strava's token exchange and refresh). */
export const zTokenResponse = model(
  "TokenResponse",
  z.object({
    token_type: z.literal("Bearer"),
    access_token: z.string(),
    refresh_token: z.string(),
    expires_at: int,
    expires_in: int,
    athlete: zTokenAthlete.nullable().optional(),
  }),
  "Tokens; an authorization-code exchange adds the summary athlete (with email).",
  {
    token_type: "Bearer",
    access_token: "a4b945687g...",
    refresh_token: "e5n567567...",
    expires_at: 1715000000,
    expires_in: 21600,
  },
);

export const zDeauthorizeResponse = model(
  "DeauthorizeResponse",
  z.object({ access_token: z.string() }),
  "The revoked access token.",
);
