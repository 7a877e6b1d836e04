// tz-lookup ships no types; it exports one function (lat, lon) → IANA zone name.
import tzlookup from "tz-lookup";

const lookup = tzlookup as unknown as (lat: number, lon: number) => string;

/** The IANA zone at a position (offline lookup), or null when the lookup fails. */
export function zoneAt(lat: number, lng: number): string | null {
  try {
    return lookup(lat, lng);
  } catch {
    return null;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

function offsetFormat(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    if (formats.size > 512) formats.clear();
    formats.set(zone, format);
  }
  return format;
}

let prepared = false;

/**
 * Loads the runtime's time-zone data once (the first Intl time-zone formatter costs tens of
 * milliseconds; later ones well under one), so no upload pays for it. Cheap to call again.
 */
export function prepareTimezones(): void {
  if (prepared) return;
  prepared = true;
  zoneOffsetSeconds(zoneAt(48.85, 2.35) ?? "UTC", Date.UTC(2024, 0, 1));
}

/** Offset of a zone from UTC at an instant, in seconds. */
export function zoneOffsetSeconds(zone: string, at: number): number {
  const parts = offsetFormat(zone).formatToParts(new Date(at));
  const name = parts.find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d{1,2})(?::?(\d{2}))?/.exec(name);
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60);
}

function offsetLabel(seconds: number): string {
  const sign = seconds < 0 ? "-" : "+";
  const abs = Math.abs(seconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, "0");
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, "0");
  return `GMT${sign}${hh}:${mm}`;
}

/** Strava-style timezone text "(GMT+01:00) Europe/Paris" and the offset used for local times. */
export function timezoneOf(
  position: [number, number] | null,
  startMs: number,
  fallbackOffsetSeconds: number | null,
): { timezone: string; offsetSeconds: number } {
  const zone = position ? zoneAt(position[0], position[1]) : null;
  if (zone) {
    const offset = zoneOffsetSeconds(zone, startMs);
    return { timezone: `(${offsetLabel(offset)}) ${zone}`, offsetSeconds: offset };
  }
  const offset = fallbackOffsetSeconds ?? 0;
  if (offset === 0) return { timezone: "(GMT+00:00) UTC", offsetSeconds: 0 };
  const name = offset % 3600 === 0 ? `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset / 3600)}` : "UTC";
  return { timezone: `(${offsetLabel(offset)}) ${name}`, offsetSeconds: offset };
}
