import type { EventData, NewEvent } from "../../events/catalogue.ts";
import type { activityRecorded } from "../../events/activity/events.ts";
import type { RecordedEvent } from "../../events/types.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import type { Platform } from "../platform.ts";
import type { TrackMatch } from "./track-matches.ts";

/**
 * The contract of the work that follows an activity's recording during upload processing (its
 * processors are segment matching and segment profiles, listed in server/activity-processors.ts).
 * What a processor is given: the activity just recorded, its streams and what ran before it.
 */
export interface RecordedActivity {
  platform: Platform;
  activity: EventData<typeof activityRecorded>;
  streams: ActivityStreams | null;
  /** The track's segment efforts when the derive worker matched them (else matched from `streams`). */
  matches?: TrackMatch[];
  /** Events the processors before this one appended to the activity's stream in this run (none after a restart). */
  appended?: RecordedEvent[];
}

/**
 * Work that follows an activity's recording during upload processing (segment matching, …). Each
 * processor returns events that the upload job appends to the activity's stream right after
 * ActivityRecorded, in the same job (idempotently), so they are facts of upload time.
 */
export type ActivityProcessor = (recorded: RecordedActivity) => Promise<NewEvent[]>;
