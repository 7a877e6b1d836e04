import type { ActivityType } from "../../shared/activity-types.ts";

/** One timed record of a device file (FIT record, TCX Trackpoint, GPX trkpt). */
export interface Sample {
  /** Milliseconds since the Unix epoch. */
  time: number;
  lat: number | null;
  lng: number | null;
  /** Metres. */
  altitude: number | null;
  heartrate: number | null;
  cadence: number | null;
  watts: number | null;
  /** °C. */
  temp: number | null;
  /** Cumulative metres as the device recorded them (may be absent). */
  distance: number | null;
  /** m/s as the device recorded it (may be absent). */
  speed: number | null;
  /**
   * TCX: metres covered since the previous sample by the account of the lap this sample closes a
   * stretch of, where the device wrote no trackpoints (timeline.ts); positions do not measure it.
   */
  gapDistance?: number;
}

/** A lap as the device wrote it. */
export interface DeviceLap {
  /** ms since the epoch. */
  startTime: number;
  /** Seconds (FIT total_elapsed_time, TCX TotalTimeSeconds); null when unknown. */
  elapsedTime: number | null;
  /** Metres as the device summed them; null when unknown. */
  distance: number | null;
  /** Seconds of timer time (FIT total_timer_time); null or absent when unknown. */
  timerTime?: number | null;
  /** Calories as the device summed them (TCX lap Calories, FIT lap total_calories). */
  calories?: number | null;
  /**
   * TCX: the lap's own Track — how many trackpoints it holds and the times of its first and last.
   * A lap is unrecorded only when its own Track is empty; its samples are its own trackpoints,
   * whatever its StartTime says (a Polar V800 writes StartTime in timer time).
   */
  points?: number;
  firstPointTime?: number | null;
  lastPointTime?: number | null;
  /**
   * FIT: the lap message's timestamp, the moment the lap ended (FIT profile); null when absent. An
   * Edge 1000 counts a pause before a lap into that lap's total_elapsed_time, so start + elapsed can
   * run 20 s into the next lap while the lap itself ended at its timestamp.
   */
  endTime?: number | null;
  /** The lap's own heart-rate summary (FIT lap avg/max_heart_rate), used when no record carries one. */
  averageHeartrate?: number | null;
  maxHeartrate?: number | null;
}

/** One FIT session (a leg of a multisport file). */
export interface DeviceSession {
  /** ms since the epoch. */
  startTime: number;
  /** ms since the epoch: start + total_elapsed_time. */
  endTime: number;
  sport: ActivityType | null;
  /** Seconds. */
  elapsedTime: number | null;
  /** Seconds. */
  timerTime: number | null;
  /** Metres. */
  distance: number | null;
  /** Metres; set on pool swims. */
  poolLength: number | null;
}

/** One FIT `length` message (a pool length, active or idle). */
export interface DeviceLength {
  /** ms since the epoch. */
  startTime: number;
  /** Seconds. */
  elapsedTime: number;
  /** Seconds; null when unknown. */
  timerTime: number | null;
  active: boolean;
}

/** A device pause (timer stop → start), ms since the epoch. */
export interface Pause {
  start: number;
  end: number;
}

/** What a parser gets out of a device file, before anything is derived. */
export interface ParsedFile {
  format: "fit" | "tcx" | "gpx";
  /** The activity type the file names (FIT session.sport, TCX Sport, GPX type), or null. */
  sport: ActivityType | null;
  /** The activity's name as the file gives it (GPX <trk><name>), used when the upload names none. */
  name?: string | null;
  /** A weak hint ("Other" in TCX → Workout) used only when neither the file nor the form names a type. */
  sportHint?: ActivityType | null;
  /** Indoor / virtual sub-sports mark the activity as on a trainer. */
  indoor: boolean;
  deviceName: string | null;
  /** Whether the altitude comes from a barometric altimeter. */
  barometric: boolean;
  samples: Sample[];
  laps: DeviceLap[];
  pauses: Pause[];
  /**
   * Indices into `samples` where a new GPX track or track segment starts (never 0). Distance and
   * elevation gain accumulate within a segment only; the gap between two segments is a pause.
   * Absent or empty when the file has one continuous track.
   */
  segmentStarts?: number[];
  /** FIT sessions in file order (several in a multisport file); absent for TCX/GPX. */
  sessions?: DeviceSession[];
  /** FIT pool-swim lengths; absent or empty otherwise. */
  lengths?: DeviceLength[];
  /** Totals the device computed itself (FIT session), used where the rules say so. */
  deviceTotals: { ascent: number | null; calories: number | null; distance: number | null };
  /**
   * FIT: when the device's timer started (the first session's start_time, the first lap's, the first
   * timer-start event or the first length, whichever is earliest) and when the last session ended
   * (start_time + total_elapsed_time); absent for TCX/GPX. The activity runs from the one to the other
   * even when the first record comes later (a pool swim records nothing until the first length ends);
   * records before the start are left out (fit.ts).
   */
  timerStart?: number | null;
  timerEnd?: number | null;
  /** FIT: the sessions' total_timer_time summed (seconds), null when unknown. */
  timerTime?: number | null;
  /** FIT: the athlete paused the timer (a timer stop followed by a start) at least once. */
  devicePaused?: boolean;
  /** FIT: the sessions' heart-rate summary (avg/max_heart_rate), used when no record carries one. */
  sessionHeartrate?: { average: number | null; max: number | null } | null;
  /**
   * FIT: no record carries heart rate and the samples' heart rate was filled in from the file's hr
   * messages (a pool swim). The stream shows it; the activity's and laps' average and maximum stay
   * the device's own summaries (session and lap messages) where the file has them.
   */
  heartrateFromHrMessages?: boolean;
  /** Offset of local time from UTC in seconds when the file says it (FIT local_timestamp, TCX offsets). */
  utcOffsetSeconds: number | null;
  /** Things worth telling the uploader (e.g. a bad CRC that was tolerated). */
  notes: string[];
}

/** A file that cannot become an activity; the message is shown as the upload's error. */
export class IngestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IngestError";
  }
}

export function emptySample(time: number): Sample {
  return {
    time,
    lat: null,
    lng: null,
    altitude: null,
    heartrate: null,
    cadence: null,
    watts: null,
    temp: null,
    distance: null,
    speed: null,
  };
}

/** A finite number from anything (strings included), else null. */
export function num(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null;
  const n = typeof value === "number" ? value : Number(String(value).trim());
  return Number.isFinite(n) ? n : null;
}
