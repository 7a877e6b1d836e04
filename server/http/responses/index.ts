/** Every family's response schemas, for the route files' `response:` lines. */
export * from "./activities.ts";
export * from "./athlete.ts";
export * from "./challenges.ts";
export * from "./clubs.ts";
export * from "./gear.ts";
export * from "./heatmaps.ts";
export * from "./oauth.ts";
export * from "./segments.ts";
export * from "./streams.ts";
export * from "./uploads.ts";
export * from "./webhooks.ts";
