import type { EventData } from "../../events/catalogue.ts";
import { handleCommand } from "../../events/decider.ts";
import { uploadDecider } from "../../events/upload/decide.ts";
import {
  type uploadFailed,
  type uploadReceived,
  uploadStream,
  type uploadSucceeded,
} from "../../events/upload/events.ts";
import { type Actor, appendOptions } from "../actor.ts";
import type { Platform } from "../platform.ts";

/**
 * The Uploads family's commands: the only place that hands upload commands to the upload decider
 * (events/upload/decide.ts). POST /v3/uploads and archive imports receive (submit.ts); the upload
 * job records the outcome (job.ts), once: its key makes a resumed or concurrent run decide nothing.
 */

/** Records a received file (UploadReceived) with the activity id reserved for it. */
export async function receiveUpload(
  platform: Platform,
  upload: EventData<typeof uploadReceived>,
  actor: Actor,
): Promise<void> {
  await handleCommand(
    platform.store,
    uploadStream(upload.uploadId),
    uploadDecider,
    { type: "receive", upload },
    appendOptions(actor),
  );
}

/** The key of an upload's one outcome (succeeded or failed). */
function outcomeKey(uploadId: number): string {
  return `upload-${uploadId}:outcome`;
}

/** The upload became an activity (UploadSucceeded). */
export async function succeedUpload(
  platform: Platform,
  outcome: EventData<typeof uploadSucceeded>,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, uploadStream(outcome.uploadId), uploadDecider, { type: "succeed", outcome }, {
    ...appendOptions(actor),
    idempotencyKey: outcomeKey(outcome.uploadId),
  });
}

/** The file cannot become an activity (UploadFailed), e.g. a duplicate or an unreadable file. */
export async function failUpload(
  platform: Platform,
  outcome: EventData<typeof uploadFailed>,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, uploadStream(outcome.uploadId), uploadDecider, { type: "fail", outcome }, {
    ...appendOptions(actor),
    idempotencyKey: outcomeKey(outcome.uploadId),
  });
}
