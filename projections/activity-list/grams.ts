/**
 * The trigrams of an activity's name, as the activity list indexes them (projection.ts) and a name
 * search asks for them (queries.ts): each three-character substring of the lower-cased name, in code
 * points, prefixed by the athlete's id and a space ("42 par") so that one GIN index holds every
 * athlete's names apart. A name holding a substring holds every trigram of it: a search reads the
 * names holding all the query's trigrams, then checks the substring itself (exact). The SQL function
 * fills the stored column `name_grams` (computed by PostgreSQL on every insert and update, live and in
 * the bulk loader alike); `nameGrams` computes the same list for a query (PostgreSQL's substr and
 * length count code points in UTF-8, as Array.from does).
 */
export const NAME_GRAMS_FUNCTION = `
    create or replace function activity_list_grams(athlete bigint, name text) returns text[]
      language plpgsql immutable parallel safe as $$
      declare grams text[] := array[]::text[];
      begin
        for i in 1 .. length(name) - 2 loop
          grams := grams || (athlete::text || ' ' || substr(name, i, 3));
        end loop;
        return grams;
      end $$;`;

/** The trigrams of a lower-cased name or query, distinct ([] under three characters). */
export function nameGrams(athleteId: number, lower: string): string[] {
  const chars = Array.from(lower);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(`${athleteId} ${chars.slice(i, i + 3).join("")}`);
  return [...grams];
}
