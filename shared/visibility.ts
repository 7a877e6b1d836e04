/**
 * Who may see an activity, as a class: Strava's `visibility` values. Read models that aggregate
 * activities (totals, calendars, records: projections/training-volume, projections/records) keep
 * one aggregate per class, so a reader adds up the classes its viewer may see — the privacy engine
 * says which (`visibilityClassesFor` in server/privacy/engine.ts) — instead of the read model
 * baking in one audience.
 */
export const VISIBILITY_CLASSES = ["everyone", "followers_only", "only_me"] as const;

export type VisibilityClass = (typeof VISIBILITY_CLASSES)[number];

/**
 * The class of an activity from what its events say. Today `private` alone decides (true: only
 * the owner); a `visibility` given by an event wins over it.
 */
export function visibilityClassOf(facts: { private: boolean; visibility?: string | null }): VisibilityClass {
  const v = facts.visibility;
  if (v === "everyone" || v === "followers_only" || v === "only_me") return v;
  return facts.private ? "only_me" : "everyone";
}
