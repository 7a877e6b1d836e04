import type { Queryable } from "../../events/db/types.ts";

/** The queries of the athlete_pictures read model (projection.ts). */
export interface AthletePicture {
  large: string;
  medium: string;
  contentType: string;
  updatedAt: string;
}

export async function athletePicture(db: Queryable, athleteId: number): Promise<AthletePicture | undefined> {
  const [row] = await db.query<
    { large_sha256: string; medium_sha256: string; content_type: string; updated_at: string | Date }
  >(
    "select large_sha256, medium_sha256, content_type, updated_at from athlete_pictures where athlete_id = $1",
    [athleteId],
  );
  if (!row) return undefined;
  return {
    large: row.large_sha256,
    medium: row.medium_sha256,
    contentType: row.content_type,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
