/**
 * What an export archive holds, read by layout: Strava's "download your data" (activities.csv,
 * activities/*, media/*, bikes.csv, shoes.csv) or Garmin Connect's (zips of the original FIT files,
 * under DI_CONNECT/). CSV columns are read by header name; missing and extra columns are tolerated.
 */
import { parse } from "csv-parse/sync";
import { parse as parser } from "csv-parse";
import { TurnBudget } from "../event-loop-turn.ts";
import { ACTIVITY_TYPES, type ActivityType, activityTypeOf } from "../../shared/activity-types.ts";
import { type DataType, dataTypeOf } from "../ingest/decode.ts";
import { ArchiveRefused, type ZipArchive } from "./zip.ts";

/** One activity of an archive: a recording to upload, or a manual entry. */
export interface ArchiveActivity {
  /** Stable key of the entry within the athlete's imports (Strava's Activity ID, or the file's path). */
  key: string;
  /** The recording's entry in the archive (null: a manual entry). */
  file: string | null;
  /** The nested zip holding `file` (Garmin). */
  container: string | null;
  dataType: DataType | null;
  name: string | null;
  description: string | null;
  type: ActivityType | null;
  commute: boolean;
  private: boolean | null;
  gearName: string | null;
  /** Manual entries: start (ISO, UTC), elapsed seconds, metres. */
  startDate: string | null;
  elapsedTime: number | null;
  distance: number | null;
  /** Photo entries in the archive. */
  media: string[];
}

export interface ArchiveGear {
  kind: "bike" | "shoe";
  name: string;
  brandName: string | null;
  modelName: string | null;
}

export interface ArchiveContents {
  layout: "strava" | "garmin";
  activities: ArchiveActivity[];
  gear: ArchiveGear[];
  /** Nested zips to open (Garmin), in order; their activities are listed after opening them. */
  containers: string[];
}

/**
 * Bounds of an archive's index, so that reading it costs the server a bounded amount of memory
 * (the issue's rule: no request moves RSS by more than 256 MB). 50,000 rows naming missing files
 * cost +147–173 MiB; a real export of 50,000 activities (20 a week for 48 years) has an
 * activities.csv of about 30 MB.
 */
const MAX_CSV_BYTES = 64 * 1024 * 1024;
export const MAX_ARCHIVE_ACTIVITIES = 50_000;

type CsvGet = (row: string[], ...names: string[]) => string | null;

/** A row's value by header name (the first column of a repeated header wins). */
function getterOf(header: string[]): CsvGet {
  const index = new Map<string, number>();
  header.forEach((name, i) => {
    const key = name.trim().toLowerCase();
    if (!index.has(key)) index.set(key, i);
  });
  return (row, ...names) => {
    for (const name of names) {
      const i = index.get(name.toLowerCase());
      const value = i === undefined ? undefined : row[i]?.trim();
      if (value) return value;
    }
    return null;
  };
}

const CSV_OPTIONS = { relax_column_count: true, relax_quotes: true, skip_empty_lines: true } as const;

/** A CSV file as rows of header → value (the first column of a repeated header wins). */
export function csvRows(text: string): { get: CsvGet; rows: string[][] } {
  const records = parse(text.replace(/^\uFEFF/, ""), CSV_OPTIONS) as string[][];
  const [header = [], ...rows] = records;
  return { rows, get: getterOf(header) };
}

/**
 * Streams a CSV entry of the archive row by row into `onRow` (with the header's getter): the file
 * is parsed as it inflates, a chunk at a time, yielding to other requests between turns. Parsing a
 * 50,000-row activities.csv at once (its text, every record, then the activities) held the event
 * loop for seconds, most of it collecting the garbage.
 */
async function eachCsvRow(
  zip: ZipArchive,
  name: string,
  onRow: (get: CsvGet, row: string[], index: number) => void,
): Promise<void> {
  const csv = parser({ ...CSV_OPTIONS, bom: true });
  const turn = new TurnBudget(8);
  let get: CsvGet | null = null;
  let index = 0;
  let failure: Error | null = null;
  csv.on("error", (error: Error) => (failure = error));
  // A row refused by onRow (an ArchiveRefused) ends the parse; drain also runs in csv's events,
  // where a throw would escape, so the refusal is kept and thrown from this function's own turn.
  let refused: ArchiveRefused | null = null;
  const drain = () => {
    let record: string[] | null;
    while (!refused && (record = csv.read() as string[] | null) !== null) {
      if (!get) get = getterOf(record);
      else {
        try {
          onRow(get, record, index++);
        } catch (error) {
          if (!(error instanceof ArchiveRefused)) throw error;
          refused = error;
        }
      }
    }
  };
  for await (const chunk of zip.chunks(name, MAX_CSV_BYTES)) {
    // A large chunk is parsed in slices, each its own turn.
    for (let at = 0; at < chunk.byteLength; at += 64 * 1024) {
      csv.write(chunk.subarray(at, at + 64 * 1024));
      drain();
      if (refused) throw refused;
      if (failure) throw new ArchiveRefused(`${name} is not a readable CSV file (${(failure as Error).message})`);
      await turn.spent();
    }
  }
  csv.end();
  await new Promise<void>((resolve) => {
    if (csv.readableEnded) return resolve();
    csv.on("end", () => resolve());
    csv.on("error", () => resolve());
    csv.on("readable", drain);
    drain();
  });
  drain();
  if (refused) throw refused;
  if (failure) throw new ArchiveRefused(`${name} is not a readable CSV file (${(failure as Error).message})`);
}

/** Strava's activity types as written in the CSV ("Virtual Ride", "E-Bike Ride", "Weight Training"). */
export function activityTypeOfCsv(value: string | null): ActivityType | null {
  if (!value) return null;
  const squashed = value.replace(/[\s-]+/g, "");
  return activityTypeOf(value) ?? activityTypeOf(squashed) ??
    ACTIVITY_TYPES.find((t) => t.toLowerCase() === squashed.toLowerCase()) ?? null;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** "Jan 5, 2020, 7:03:12 AM" (UTC, as Strava writes it) or ISO 8601 → ISO UTC; null if neither. */
export function csvDate(value: string | null): string | null {
  if (!value) return null;
  const m = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4}),? (\d{1,2}):(\d{2}):(\d{2}) ?([AP]M)?$/i.exec(value.trim());
  let ms: number;
  if (m) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    let hour = Number(m[4]);
    if (m[7]) hour = (hour % 12) + (m[7].toUpperCase() === "PM" ? 12 : 0);
    ms = Date.UTC(Number(m[3]), month, Number(m[2]), hour, Number(m[5]), Number(m[6]));
    if (month < 0) return null;
  } else {
    ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value.replace(" ", "T")}Z`);
  }
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z") : null;
}

function number(value: string | null): number | null {
  if (value === null) return null;
  const n = Number(value.replace(/,/g, ""));
  return Number.isFinite(n) ? n : null;
}

function flag(value: string | null): boolean | null {
  if (value === null) return null;
  return /^(true|1|yes)$/i.test(value) ? true : /^(false|0|no)$/i.test(value) ? false : null;
}

/** The data type of a recording by its name (.fit, .fit.gz, .gpx, .gpx.gz, .tcx, .tcx.gz). */
export function dataTypeOfName(name: string): DataType | null {
  const m = /\.(fit|gpx|tcx)(\.gz)?$/i.exec(name);
  return m ? dataTypeOf(`${m[1].toLowerCase()}${m[2] ? ".gz" : ""}`) ?? null : null;
}

function stravaRoot(zip: ZipArchive): string | null {
  for (const name of zip.entries.keys()) {
    const m = /^((?:[^/]+\/)?)activities\.csv$/i.exec(name);
    if (m) return m[1];
  }
  return null;
}

function isGarmin(zip: ZipArchive): boolean {
  for (const name of zip.entries.keys()) {
    if (/(^|\/)DI_CONNECT\//i.test(name) || /\.zip$/i.test(name)) return true;
  }
  return false;
}

/** Reads an archive's index (CSV files, names of nested zips); refuses an unknown layout. */
export async function readArchive(zip: ZipArchive): Promise<ArchiveContents> {
  const root = stravaRoot(zip);
  if (root !== null) return await readStrava(zip, root);
  if (isGarmin(zip)) {
    const containers = [...zip.entries.keys()].filter((n) => /\.zip$/i.test(n));
    const activities = [...zip.entries.keys()].filter((n) => /\.fit$/i.test(n)).map((n) => garminActivity(n, null));
    return { layout: "garmin", activities, gear: [], containers };
  }
  throw new ArchiveRefused(
    "unknown layout: neither a Strava export (activities.csv, activities/…) nor a Garmin Connect export (DI_CONNECT/…, zips of FIT files)",
  );
}

/** A FIT file of a Garmin export (everything comes from the file itself). */
export function garminActivity(file: string, container: string | null): ArchiveActivity {
  return {
    key: container ? `${container}!${file}` : file,
    file,
    container,
    dataType: "fit",
    name: null,
    description: null,
    type: null,
    commute: false,
    private: null,
    gearName: null,
    startDate: null,
    elapsedTime: null,
    distance: null,
    media: [],
  };
}

async function readStrava(zip: ZipArchive, root: string): Promise<ArchiveContents> {
  const activities: ArchiveActivity[] = [];
  await eachCsvRow(zip, `${root}activities.csv`, (get, row, i) => {
    if (i >= MAX_ARCHIVE_ACTIVITIES) {
      throw new ArchiveRefused(
        `activities.csv lists more than ${MAX_ARCHIVE_ACTIVITIES.toLocaleString("en")} activities: split the archive`,
      );
    }
    const fileName = get(row, "Filename");
    const file = fileName ? `${root}${fileName.replace(/^\/+/, "")}` : null;
    const elapsed = number(get(row, "Elapsed Time"));
    // The first "Distance" column is in km, a later one (same header) in metres: take km × 1000.
    const km = number(get(row, "Distance"));
    const media = (get(row, "Media") ?? "").split(/[|,]/).map((m) => m.trim()).filter(Boolean).map((m) =>
      `${root}${m}`
    );
    activities.push({
      key: get(row, "Activity ID") ?? `row-${i + 1}`,
      file,
      container: null,
      dataType: file ? dataTypeOfName(file) : null,
      name: get(row, "Activity Name"),
      description: get(row, "Activity Description"),
      type: activityTypeOfCsv(get(row, "Activity Type")),
      commute: flag(get(row, "Commute")) ?? false,
      private: flag(get(row, "Activity Private", "Private")),
      gearName: get(row, "Activity Gear"),
      startDate: csvDate(get(row, "Activity Date")),
      elapsedTime: elapsed,
      distance: km === null ? null : km * 1000,
      media,
    });
  });
  const gear: ArchiveGear[] = [];
  for (const [file, kind] of [["bikes.csv", "bike"], ["shoes.csv", "shoe"]] as const) {
    if (!zip.entries.has(`${root}${file}`)) continue;
    await eachCsvRow(zip, `${root}${file}`, (get, row) => {
      const name = get(row, kind === "bike" ? "Bike Name" : "Shoe Name", "Name");
      if (!name) return;
      gear.push({
        kind,
        name,
        brandName: get(row, kind === "bike" ? "Bike Brand" : "Shoe Brand", "Brand"),
        modelName: get(row, kind === "bike" ? "Bike Model" : "Shoe Model", "Model"),
      });
    });
  }
  return { layout: "strava", activities, gear, containers: [] };
}
