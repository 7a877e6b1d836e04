import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityDeleted } from "../../events/activity/changes.ts";
import { uploadFailed, uploadReceived, uploadSucceeded } from "../../events/upload/events.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import type { Projection } from "../projection.ts";
import { uploadsBulk } from "./bulk.ts";

/**
 * Uploads and their status, stored as the spec's status string (UPLOAD_STATUS). The seam for the
 * activity representation: an activity id with an upload row in status "processing" reads
 * resource_state -1. `upload_fingerprints` holds what duplicate checks compare.
 */
export const uploadsProjection: Projection = {
  name: "uploads",
  tables: ["uploads", "upload_fingerprints"],
  schema: `
    create table if not exists uploads (
      id bigint primary key,
      athlete_id bigint not null,
      activity_id bigint not null,
      external_id text,
      file_name text not null,
      data_type text not null,
      original_sha256 text not null,
      content_sha256 text not null,
      status text not null,
      error text,
      notes jsonb not null default '[]',
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index if not exists uploads_activity on uploads (activity_id);
    create index if not exists uploads_status on uploads (status);
    create index if not exists uploads_content on uploads (athlete_id, content_sha256);
    create table if not exists upload_fingerprints (
      activity_id bigint primary key,
      athlete_id bigint not null,
      start_date timestamptz not null,
      device_name text,
      content_sha256 text not null
    );
    create index if not exists upload_fingerprints_athlete on upload_fingerprints (athlete_id, start_date);
  `,
  isolated: true,
  bulk: uploadsBulk,
  handles: [uploadReceived.type, uploadSucceeded.type, uploadFailed.type, activityDeleted.type],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === uploadReceived.type) {
      const d = event.data;
      await tx.query(
        `insert into uploads (id, athlete_id, activity_id, external_id, file_name, data_type, original_sha256,
           content_sha256, status, created_at, updated_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$10,$9,$9)`,
        [
          d.uploadId,
          d.athleteId,
          d.activityId,
          d.externalId,
          d.fileName,
          d.dataType,
          d.originalSha256,
          d.contentSha256,
          event.recordedAt,
          UPLOAD_STATUS.processing,
        ],
      );
    } else if (event.type === uploadSucceeded.type) {
      const d = event.data;
      await tx.query(
        `update uploads set status = $4, error = null, notes = $2::jsonb, updated_at = $3 where id = $1`,
        [d.uploadId, JSON.stringify(d.notes), event.recordedAt, UPLOAD_STATUS.ready],
      );
      await tx.query(
        `insert into upload_fingerprints (activity_id, athlete_id, start_date, device_name, content_sha256)
         values ($1,$2,$3,$4,$5) on conflict (activity_id) do nothing`,
        [d.activityId, d.athleteId, d.startDate, d.deviceName, d.contentSha256],
      );
    } else if (event.type === uploadFailed.type) {
      const d = event.data;
      await tx.query(
        `update uploads set status = $4, error = $2, updated_at = $3 where id = $1`,
        [d.uploadId, d.error, event.recordedAt, UPLOAD_STATUS.error],
      );
    } else if (event.type === activityDeleted.type) {
      const { activityId } = event.data;
      await tx.query(
        `update uploads set status = $3, updated_at = $2 where activity_id = $1 and status = $4`,
        [activityId, event.recordedAt, UPLOAD_STATUS.deleted, UPLOAD_STATUS.ready],
      );
      await tx.query("delete from upload_fingerprints where activity_id = $1", [activityId]);
    }
  },
};
