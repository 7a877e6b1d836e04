import type { ActivityType } from "../../shared/activity-types.ts";
import { movingThreshold } from "./moving.ts";
import type { ParsedFile } from "./types.ts";

/** Per interval (i − 1, i): whether its midpoint lies in a session of the given type (multisport files). */
export function sportMask(parsed: ParsedFile, type: ActivityType): Uint8Array | undefined {
  const sessions = (parsed.sessions ?? []).filter((s) => s.sport === type);
  if ((parsed.sessions?.length ?? 0) < 2 || sessions.length === 0) return undefined;
  const samples = parsed.samples;
  const mask = new Uint8Array(samples.length);
  let k = 0;
  for (let i = 1; i < samples.length; i++) {
    const mid = (samples[i - 1].time + samples[i].time) / 2;
    while (k < sessions.length && sessions[k].endTime < mid) k++;
    mask[i] = k < sessions.length && sessions[k].startTime <= mid ? 1 : 0;
  }
  if (samples.length > 1) mask[0] = mask[1];
  return mask;
}

/**
 * A multisport file: each interval's moving threshold by the sport of the session it lies in (a
 * transition's, or outside every session, as for "other" sports and the activity's own type).
 */
export function sessionThresholds(parsed: ParsedFile, type: ActivityType): Float64Array | undefined {
  const sessions = parsed.sessions ?? [];
  if (sessions.length < 2) return undefined;
  const samples = parsed.samples;
  const out = new Float64Array(samples.length).fill(movingThreshold(type));
  let k = 0;
  for (let i = 1; i < samples.length; i++) {
    const mid = (samples[i - 1].time + samples[i].time) / 2;
    while (k < sessions.length && sessions[k].endTime < mid) k++;
    if (k < sessions.length && sessions[k].startTime <= mid) out[i] = movingThreshold(sessions[k].sport ?? "Workout");
  }
  if (samples.length > 1) out[0] = out[1];
  return out;
}

/**
 * A multisport file: the sport of the session a moment lies in (null in a transition or outside
 * every session); undefined for a file of one session.
 */
export function sessionSportAt(parsed: ParsedFile, time: number): ActivityType | null | undefined {
  const sessions = parsed.sessions ?? [];
  if (sessions.length < 2) return undefined;
  // The latest session begun by then: a session's end (start + elapsed, in ms) may pass the next
  // one's start (an FR920XT's swim ends 521 ms after its transition starts, at whole seconds).
  let session: (typeof sessions)[number] | undefined;
  for (const s of sessions) if (s.startTime <= time && (!session || s.startTime >= session.startTime)) session = s;
  return session && time < session.endTime ? session.sport : null;
}
