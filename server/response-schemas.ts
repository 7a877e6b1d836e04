/** Every family's response schemas, for the route files' `response:` lines. */
export * from "./activities/schema.ts";
export * from "./athletes/schema.ts";
export * from "./challenges/schema.ts";
export * from "./clubs/schema.ts";
export * from "./gear/schema.ts";
export * from "./heatmaps/schema.ts";
export * from "./oauth/schema.ts";
export * from "./segments/schema.ts";
export * from "./activities/streams-schema.ts";
export * from "./uploads/schema.ts";
export * from "./webhooks/schema.ts";
