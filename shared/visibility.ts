/**
 * Who may see an activity: Strava's `visibility` (its answers carry it; stravalib reads it). The
 * spec's boolean `private` is true exactly when the visibility is `only_me`.
 *
 * The rule itself — which visibilities a viewer sees of an owner's activities — is `SEEN_BY`
 * below, applied by the privacy engine (server/privacy/engine.ts: `mayView`, `visibleActivities`,
 * `visibilitiesSeen`). It lives here, beside the values, so that read models which keep data for
 * "everyone" (projections cannot import the server) name the same rule (`everyoneSeesSql`).
 */
export const VISIBILITIES = ["everyone", "followers_only", "only_me"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** The spec's `private` of a visibility. */
export function isPrivateVisibility(visibility: Visibility): boolean {
  return visibility === "only_me";
}

/** The visibility an event recorded before `visibility` existed meant by its `private` flag. */
export function visibilityOfPrivate(isPrivate: boolean): Visibility {
  return isPrivate ? "only_me" : "everyone";
}

/**
 * How a viewer stands to an activity's owner:
 * - `owner_all`: the owner's own token with view_private (activity:read_all);
 * - `owner`: the owner's token without it;
 * - `follower`: an athlete who follows the owner today (following is immediate);
 * - `anyone`: every other athlete, an application acting for them, no token at all, and every
 *   object others read (a heatmap, challenge progress, a segment's counts).
 */
export type Relation = "owner_all" | "owner" | "follower" | "anyone";

/** The rule: the visibilities each relation sees. */
export const SEEN_BY: Readonly<Record<Relation, readonly Visibility[]>> = {
  owner_all: ["everyone", "followers_only", "only_me"],
  owner: ["everyone", "followers_only"],
  follower: ["everyone", "followers_only"],
  anyone: ["everyone"],
};

/** SQL: the row (alias with a `visibility` column) is seen by anyone (the relation `anyone`). */
export function everyoneSeesSql(alias: string): string {
  return `(${alias}.visibility = 'everyone')`;
}

/**
 * `private` / `visibility` of a request, resolved against the activity's current visibility (null
 * for a new activity) and the athlete's default:
 * - `visibility` wins; with `private` beside it, the two must agree (else "conflict");
 * - `private: true` is `only_me`;
 * - `private: false` means "not only me": the current visibility when it is not only_me, else the
 *   athlete's default when that is not only_me, else `everyone`;
 * - neither: the current visibility, or the athlete's default for a new activity.
 */
export function resolveVisibility(
  asked: { visibility?: Visibility; private?: boolean },
  current: Visibility | null,
  athleteDefault: Visibility,
): Visibility | "conflict" {
  if (asked.visibility !== undefined) {
    if (asked.private !== undefined && asked.private !== isPrivateVisibility(asked.visibility)) return "conflict";
    return asked.visibility;
  }
  if (asked.private === true) return "only_me";
  if (asked.private === false) {
    if (current !== null && current !== "only_me") return current;
    return athleteDefault !== "only_me" ? athleteDefault : "everyone";
  }
  return current ?? athleteDefault;
}

/**
 * Read models that aggregate activities (totals, calendars, records: projections/training-volume,
 * projections/records) keep one aggregate per visibility, so a reader adds up the classes its
 * viewer may see — the privacy engine says which (`visibilityClassesFor` in
 * server/privacy/engine.ts) — instead of the read model baking in one audience.
 */
export const VISIBILITY_CLASSES = VISIBILITIES;
export type VisibilityClass = Visibility;

/** The class of an activity from what its events say: its `visibility`, else (older facts) its `private`. */
export function visibilityClassOf(facts: { private?: boolean; visibility?: string | null }): VisibilityClass {
  const v = facts.visibility;
  if (v === "everyone" || v === "followers_only" || v === "only_me") return v;
  return visibilityOfPrivate(facts.private === true);
}
