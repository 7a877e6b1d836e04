import { haversine } from "./geo.ts";
import { type DeviceLap, emptySample, type ParsedFile, type Sample } from "./types.ts";

/**
 * The samples cover the whole activity: a TCX lap's span the device wrote no trackpoints for (a lap
 * without any, or the part of a lap before its first or after its last trackpoint) gets a sample at
 * each end, the distance the lap says was covered there on the sample that closes it; and the
 * activity's first and last moments (the timer's, when the file says it) get a sample of their own
 * when no record falls there. Distance, moving time (judged over such a gap like over any other),
 * the streams, splits and laps then all run over the same time, by the same rules.
 */

/** Seconds a TCX lap's trackpoints may span less than its TotalTimeSeconds and still cover it. */
export const UNSAMPLED_MIN_S = 10;
/** A lap's boundary within this of a sample is that sample's moment (ms). */
const SAME_MOMENT_MS = 1000;

/** A stretch of a lap without trackpoints: from, to (ms) and the distance the device's lap gives it. */
interface UnsampledPart {
  lap: DeviceLap;
  from: number;
  to: number;
  distance: number;
}

/**
 * TCX: each lap's unsampled stretches, by the same rule whether the lap has no trackpoint or only some:
 * a lap holds what its StartTime, TotalTimeSeconds and DistanceMeters say. Its trackpoints cover the
 * span between their first and last; what the lap's time holds beyond that (more than
 * UNSAMPLED_MIN_S) lies before the first (from StartTime on) and after the last, and the lap's
 * distance beyond what the trackpoints cover is spread over those stretches (the device's own
 * distance readings say how much lies before the first trackpoint where they run from the lap's
 * start; else in proportion to time). A lap whose StartTime does not bracket its trackpoints (a Polar
 * V800 writes StartTime in timer time) is taken as its trackpoints alone.
 */
function unsampledParts(parsed: ParsedFile): UnsampledPart[] {
  const samples = parsed.samples;
  const parts: UnsampledPart[] = [];
  let lapsBefore = 0;
  let j = 0;
  for (const lap of parsed.laps) {
    const seconds = lap.elapsedTime;
    const distance = Math.max(0, lap.distance ?? 0);
    if (seconds === null || !(seconds > 0)) {
      lapsBefore += distance;
      continue;
    }
    const start = lap.startTime;
    const end = start + seconds * 1000;
    if (!lap.points || lap.firstPointTime == null || lap.lastPointTime == null) {
      parts.push({ lap, from: start, to: end, distance });
      lapsBefore += distance;
      continue;
    }
    const first = lap.firstPointTime;
    const last = lap.lastPointTime;
    const unsampled = seconds * 1000 - (last - first);
    if (unsampled > UNSAMPLED_MIN_S * 1000 && start <= first + SAME_MOMENT_MS && end >= last - SAME_MOMENT_MS) {
      const leadMs = Math.max(0, first - start);
      const tailMs = Math.max(0, end - last);
      while (j < samples.length && samples[j].time < first) j++;
      let k = j;
      while (k + 1 < samples.length && samples[k + 1].time <= last) k++;
      const firstReading = samples[j]?.distance ?? null;
      const lastReading = samples[k]?.distance ?? null;
      let lead: number;
      let tail: number;
      if (firstReading !== null && lastReading !== null && firstReading >= lapsBefore) {
        // The device's cumulative distance: what it read at the lap's first trackpoint beyond the laps
        // before lies before it; what the lap holds beyond its last reading, after.
        lead = Math.min(distance, firstReading - lapsBefore);
        tail = Math.max(0, Math.min(distance - lead, lapsBefore + distance - lastReading));
      } else {
        let covered = 0;
        let lat: number | null = null;
        let lng: number | null = null;
        for (let i = j; i <= k; i++) {
          const s = samples[i];
          if (s.lat === null || s.lng === null) continue;
          if (lat !== null && lng !== null) covered += haversine(lat, lng, s.lat, s.lng);
          lat = s.lat;
          lng = s.lng;
        }
        const rest = Math.max(0, distance - covered);
        lead = leadMs + tailMs > 0 ? (rest * leadMs) / (leadMs + tailMs) : 0;
        tail = rest - lead;
      }
      if (leadMs >= SAME_MOMENT_MS) parts.push({ lap, from: start, to: first, distance: lead });
      if (tailMs >= SAME_MOMENT_MS) parts.push({ lap, from: last, to: end, distance: tail });
    }
    lapsBefore += distance;
  }
  return parts.sort((a, b) => a.from - b.from);
}

/** Index of a sample at `time` (within SAME_MOMENT_MS), or -1. */
function sampleAt(samples: readonly Sample[], time: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].time < time) lo = mid + 1;
    else hi = mid;
  }
  for (const i of [lo - 1, lo]) {
    if (i >= 0 && i < samples.length && Math.abs(samples[i].time - time) < SAME_MOMENT_MS) return i;
  }
  return -1;
}

/**
 * TCX: a sample at each end of every unsampled stretch of a lap, the stretch's distance on the sample
 * that closes it (`gapDistance`). The opening one is a trackpoint already there (within a second) or a
 * new sample; the closing one is always a new sample without readings (a second before the trackpoint
 * that follows, when one is there): no heart rate, cadence or power reading stands for the stretch,
 * in the streams as in the averages. The lap's own span is widened to its samples. A stretch some
 * other trackpoint falls inside is left as the file has it.
 */
export function fillUnsampledLaps(parsed: ParsedFile): void {
  if (parsed.format !== "tcx" || parsed.samples.length === 0) return;
  const added = new Set<Sample>();
  for (const part of unsampledParts(parsed)) {
    const samples = parsed.samples;
    // A trackpoint inside the stretch: the lap's times do not describe its trackpoints.
    const next = insertionIndex(samples, part.from + SAME_MOMENT_MS - 1);
    if (next < samples.length && samples[next].time <= part.to - SAME_MOMENT_MS) continue;
    const lap = part.lap;
    let a = sampleAt(samples, part.from);
    if (a === -1) {
      a = insertionIndex(samples, part.from);
      const opening = emptySample(part.from);
      samples.splice(a, 0, opening);
      added.add(opening);
      lap.firstPointTime = Math.min(lap.firstPointTime ?? part.from, part.from);
    }
    const following = sampleAt(samples, part.to);
    const closeAt = following === -1 ? part.to : samples[following].time - SAME_MOMENT_MS;
    if (closeAt <= samples[a].time) continue;
    const b = insertionIndex(samples, closeAt);
    const closing = emptySample(closeAt);
    closing.gapDistance = part.distance;
    samples.splice(b, 0, closing);
    if (following === -1) lap.lastPointTime = Math.max(lap.lastPointTime ?? part.to, part.to);
    // The lap is covered now (a sample of another lap may stand at its ends: it spans them).
    lap.points = Math.max(lap.points ?? 0, 1);
    lap.firstPointTime ??= samples[a].time;
    lap.lastPointTime ??= closeAt;
    added.add(closing);
  }
  carryReadings(parsed.samples, added);
}

/**
 * A TCX with the device's cumulative distance on its trackpoints: the new samples before its first
 * reading and after its last carry readings too, counted back from the first (the device's reading
 * there already holds the laps before it) and on from the last by the stretches' distances, so the
 * distance stream stays the device's own (between readings it is interpolated over time anyway).
 */
function carryReadings(samples: Sample[], added: ReadonlySet<Sample>): void {
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i++) {
    if (samples[i].distance === null) continue;
    if (first === -1) first = i;
    last = i;
  }
  if (first === -1) return;
  for (let i = first - 1; i >= 0 && added.has(samples[i]); i--) {
    const after = samples[i + 1];
    samples[i].distance = Math.max(0, (after.distance as number) - (after.gapDistance ?? 0));
  }
  for (let i = last + 1; i < samples.length && added.has(samples[i]); i++) {
    samples[i].distance = (samples[i - 1].distance as number) + (samples[i].gapDistance ?? 0);
  }
}

/** Where a sample at `time` goes to keep the samples in time order. */
function insertionIndex(samples: readonly Sample[], time: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].time <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A sample at the activity's start and end when no record is there (within a second): the streams
 * then span the activity, from 0 to its elapsed time (a pool swim's last record comes minutes before
 * the timer stopped; an Edge 530 wrote its first 45 s after the timer started).
 */
export function coverSpan(parsed: ParsedFile, startMs: number, endMs: number): void {
  const samples = parsed.samples;
  if (samples.length === 0) return;
  if (Math.round((samples[0].time - startMs) / 1000) >= 1) {
    samples.unshift(emptySample(startMs));
    if (parsed.segmentStarts) parsed.segmentStarts = parsed.segmentStarts.map((i) => i + 1);
  }
  if (Math.round((endMs - samples[samples.length - 1].time) / 1000) >= 1) samples.push(emptySample(endMs));
}
