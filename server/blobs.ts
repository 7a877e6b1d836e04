import { createHash } from "node:crypto";
import type { Queryable } from "../events/db/types.ts";

/** Content-addressed storage of large immutable data (uploaded files, streams, photos, tiles). */
export async function putBlob(db: Queryable, content: Uint8Array): Promise<string> {
  const sha256 = createHash("sha256").update(content).digest("hex");
  await db.query(
    `insert into public.blobs (sha256, content, size) values ($1, $2, $3)
     on conflict (sha256) do nothing`,
    [sha256, content, content.byteLength],
  );
  return sha256;
}

export async function getBlob(db: Queryable, sha256: string): Promise<Uint8Array | undefined> {
  const [row] = await db.query<{ content: Uint8Array }>(
    "select content from public.blobs where sha256 = $1",
    [sha256],
  );
  return row ? new Uint8Array(row.content) : undefined;
}
