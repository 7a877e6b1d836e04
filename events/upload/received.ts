import type { EventData } from "../catalogue.ts";
import { catalogued } from "../index.ts";
import type { EventStore } from "../store.ts";
import { uploadReceived, uploadStream } from "./events.ts";

export type ReceivedUpload = EventData<typeof uploadReceived>;

/** The file an upload received: the first event of its stream (UploadReceived), if it is one. */
export async function receivedUpload(store: EventStore, uploadId: number): Promise<ReceivedUpload | undefined> {
  const [first] = await store.readStream(uploadStream(uploadId));
  const event = first && catalogued(first);
  return event?.type === uploadReceived.type ? event.data : undefined;
}
