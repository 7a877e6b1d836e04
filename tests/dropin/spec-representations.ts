import {
  type Field,
  listFields,
  nameList,
  paragraph,
  readSpec,
  type Section,
  section,
  tableFields,
  topLevelSplit,
} from "./spec-tables.ts";

/**
 * The representations of the spec's "Resources and their fields", read from its tables and
 * paragraphs (spec-tables.ts), and the check of an answer against one: every field the spec lists
 * has the spec's type, a field the representation omits is absent, a field whose notes name its
 * values holds one of them. Each failure names the spec's row.
 */

export interface Representation {
  name: string;
  fields: Field[];
  /** Fields that must not appear, each with the row that says so. */
  absent: { name: string; source: string }[];
  /** Nested objects: a field's value checked as another representation (an array's items each). */
  nested: Record<string, string>;
  /** Fields whose value must be null (Best effort: segment, kom_rank, pr_rank). */
  nulls?: { name: string; source: string }[];
  /** Fields whose objects hold exactly these keys (Best effort: activity and athlete hold only id). */
  exactKeys?: Record<string, { keys: string[]; source: string }>;
}

type Spec = ReturnType<typeof readSpec>;

/**
 * Whether a field may be left out (or null) of an answer: its row says when it applies ("rides
 * only", "only if recorded with heartrate", "present in the token-exchange response", "deprecated",
 * "provided at upload", "where applicable", "appended in …", "optional").
 */
export function conditional(field: Field): boolean {
  return /\bonly\b|\bif\b|\bdeprecated\b|provided at upload|where applicable|appears in|present in|appended in|\boptional\b|\bwhen\b/i
    .test(`${field.type} ${field.notes}`);
}

/** The values a field's notes list: "'M' or 'F'", "one of: '…', '…'", "casual_club, racing_team, …", "0 to 5". */
export function valuesOf(field: Field, activityTypes: string[]): (string | number)[] | undefined {
  const notes = field.notes;
  if (/activity type, see list below/.test(notes)) return activityTypes;
  const range = /^(\d+) to (\d+)\b/.exec(notes);
  if (range) {
    const out: number[] = [];
    for (let i = Number(range[1]); i <= Number(range[2]); i++) out.push(i);
    return out;
  }
  const quoted = [...notes.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  if (quoted.length >= 2 && /\bor\b|one of/.test(notes)) return quoted;
  const listed = notes.includes(":") ? notes.slice(notes.lastIndexOf(":") + 1).trim() : notes;
  if (/^[a-z_]+(, [a-z_]+)+$/.test(listed) && field.type === "string") return listed.split(", ");
  return undefined;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isInt = (v: unknown) => (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Whether a value has the spec's type ("integer", "float", "time string", "[latitude, longitude] or null", …). */
export function typeOk(value: unknown, type: string): boolean | undefined {
  const t = type.toLowerCase().trim();
  const orNull = / or null$/.exec(t);
  if (orNull) return value === null || typeOk(value, t.slice(0, orNull.index));
  if (t === "integer" || t === "integer (64-bit)") return isInt(value);
  if (t === "float") return typeof value === "number" && Number.isFinite(value);
  if (t === "string") return typeof value === "string";
  if (t === "boolean") return typeof value === "boolean";
  if (t === "time string") return typeof value === "string" && DATE_TIME.test(value);
  if (t === "date string") return typeof value === "string" && DATE.test(value);
  if (t === "[latitude, longitude]") {
    return Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === "number");
  }
  if (t === "array") return Array.isArray(value);
  if (t === "array of integer") return Array.isArray(value) && value.every(isInt);
  if (t === "object" || t === "meta object") return isObject(value);
  if (t === "map") return isObject(value) && Object.values(value).every((v) => typeof v === "string");
  return undefined; // "see Club membership fields", "type depends on challenge": checked elsewhere or not typed
}

/** What nested representation a field's notes name ("segment effort summaries", "meta or summary athlete", …). */
const NESTED: [RegExp, string][] = [
  [/^meta or summary athlete$/, "Meta or summary athlete"],
  [/^summary athlete/, "Athlete"],
  [/^segment effort summaries$/, "Segment effort"],
  [/^lap summaries$/, "Lap"],
  [/^split summaries/, "Split"],
  [/^best effort summaries/, "Best effort"],
  [/^gear summary$/, "Gear summary"],
  [/^photos summary$/, "Photos summary"],
  [/^segment summary/, "Segment summary"],
  [/^see Achievement$/, "Achievement"],
  [/^meta activity \(id, resource_state\)$/, "Meta activity"],
  [/^meta athlete$/, "Meta athlete"],
  [/^route: /, "Map"],
  [/^includes a summary polyline/, "Segment map"],
];

function nestedOf(fields: Field[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const hit = NESTED.find(([re]) => re.test(f.notes));
    if (hit) out[f.name] = hit[1];
  }
  return out;
}

/** A coordinate pair named without its type in a list ("start_latlng, end_latlng, elev_difference (float)"): the Conventions' [latitude, longitude]. */
function latlngTyped(fields: Field[]): Field[] {
  return fields.map((f) => (/_latlng$/.test(f.name) ? { ...f, type: "[latitude, longitude]" } : f));
}

function fromParagraph(s: Section, prefix: string): Field[] {
  const p = paragraph(s, prefix);
  return listFields(p.rest, p.line, p.text);
}

function rep(name: string, fields: Field[], extra: Partial<Representation> = {}): Representation {
  return { name, fields, absent: [], nested: nestedOf(fields), ...extra };
}

/** Every representation of "Resources and their fields", by name. */
export function representations(spec: Spec): { reps: Map<string, Representation>; activityTypes: string[] } {
  const reps = new Map<string, Representation>();
  const add = (r: Representation) => reps.set(r.name, r);
  const R = "Resources and their fields";

  // Athlete (summary); its membership row names the Club membership fields.
  const athlete = section(spec, "Athlete (summary representation, resource_state 2)", R);
  const clubSection = section(spec, "Club", R);
  const membership = paragraph(clubSection, "Club membership fields");
  const membershipFields = listFields(
    membership.rest.replace(/^\(relative to the requesting or listed athlete\):\s*/, ""),
    membership.line,
    membership.text,
  );
  const athleteFields = tableFields(athlete.tables[0]).flatMap((f) =>
    /see Club membership fields/.test(f.type)
      ? membershipFields.filter((m) => m.name === f.name).map((m) => ({ ...m, notes: `${m.notes}; ${f.notes}` }))
      : [f]
  );
  add(rep("Athlete", athleteFields));
  const meta = athleteFields.filter((f) => f.name === "id" || f.name === "resource_state");
  add(rep("Meta athlete", meta));

  // Activity: detailed; summary = detailed minus the omitted list; the summary's map.
  const activity = section(spec, "Activity", R);
  const detailed = tableFields(activity.tables[0]);
  const summaryLine = paragraph(activity, "Summary representation (resource_state 2): same as detailed except");
  const omitted = nameList(/these attributes are omitted: ([^.]*)\./.exec(summaryLine.rest)![1]);
  const summarySource = `spec line ${summaryLine.line}: ${summaryLine.text}`;
  const mapKeys = nameList(/The map then holds only the summary polyline \(([^)]*)\)/.exec(summaryLine.rest)![1]);
  const detailedMap = /route: (.*)$/.exec(detailed.find((f) => f.name === "map")!.notes)![1];
  add(rep("Activity detailed", detailed));
  add(
    rep("Activity summary", detailed.filter((f) => !omitted.includes(f.name)), {
      absent: omitted.map((name) => ({ name, source: summarySource })),
      nested: { ...nestedOf(detailed), map: "Summary map" },
    }),
  );
  const mapField = (name: string, source: string): Field => ({
    name,
    type: name === "resource_state" ? "integer" : "string",
    notes: "",
    source,
  });
  const detailedMapSource = detailed.find((f) => f.name === "map")!.source;
  add(rep("Map", nameList(detailedMap).map((k) => mapField(k, detailedMapSource))));
  add(
    rep("Summary map", mapKeys.map((k) => mapField(k, summarySource)), {
      absent: nameList(detailedMap).filter((k) => !mapKeys.includes(k)).map((name) => ({
        name,
        source: summarySource,
      })),
    }),
  );
  const guid = /Lists of club activities additionally carry a (\w+) (\w+)/.exec(summaryLine.rest)!;
  const summary = reps.get("Activity summary")!;
  add({
    ...summary,
    name: "Club activity",
    fields: [...summary.fields, { name: guid[1], type: guid[2], notes: "", source: summarySource }],
  });
  const typesLine = paragraph(activity, "Activity types (exact values):");
  const activityTypes = typesLine.rest.split(".")[0].split(",").map((t) => t.trim());

  // Segment effort; Best effort as its variation.
  const effort = section(spec, "Segment effort (summary)", R);
  const effortFields = tableFields(effort.tables[0]);
  const metaActivity = effortFields.find((f) => f.name === "activity")!;
  const metaKeys = nameList(/\(([^)]*)\)/.exec(metaActivity.notes)![1]);
  add(
    rep("Meta activity", metaKeys.map((k) => ({ name: k, type: "integer", notes: "", source: metaActivity.source }))),
  );
  add(rep("Segment effort", effortFields));
  const best = paragraph(section(spec, "Best effort", R), "Same shape as a segment effort with");
  const bestSource = `spec line ${best.line}: ${best.text}`;
  const nullNames = nameList(/^with (.*?) null,/.exec(`with ${best.rest}`)![1]);
  const onlyId = nameList(/and (.*?) holding only id/.exec(best.rest)![1].replace(" and ", ", "));
  add(
    rep("Best effort", effortFields, {
      nested: Object.fromEntries(Object.entries(nestedOf(effortFields)).filter(([k]) => k === "achievements")),
      nulls: nullNames.map((name) => ({ name, source: bestSource })),
      exactKeys: Object.fromEntries(onlyId.map((name) => [name, { keys: ["id"], source: bestSource }])),
    }),
  );
  add(rep("Achievement", tableFields(section(spec, "Achievement", R).tables[0])));
  add(rep("Split", fromParagraph(section(spec, "Split (items of splits_metric and splits_standard)", R), "Fields:")));
  const lap = fromParagraph(section(spec, "Lap", R), "Fields:");
  add(rep("Lap", lap, { nested: { activity: "Meta activity", athlete: "Meta athlete" } }));
  add(rep("Gear summary", fromParagraph(section(spec, "Gear summary", R), "Fields:")));

  const photos = section(spec, "Photos summary (object in activity.photos)", R);
  const photosFields = tableFields(photos.tables[0]);
  const primary = photosFields.find((f) => f.name === "primary")!;
  add(rep("Photos summary", photosFields, { nested: { primary: "Photos summary primary" } }));
  add(
    rep(
      "Photos summary primary",
      listFields(primary.notes, 0, primary.source).map((f) => ({ ...f, source: primary.source })),
    ),
  );
  const photo = section(spec, "Photo (activity photos endpoint)", R);
  add(rep("Native photo", fromParagraph(photo, "Native photo fields:")));
  add(rep("External photo", fromParagraph(photo, "External-source photo fields:")));

  const zones = tableFields(section(spec, "Activity zones (items of the zones response)", R).tables[0]);
  add(rep("Heart-rate zone", zones));
  add(
    rep("Power zone", zones.filter((f) => !/heartrate zone object only/.test(f.notes)), {
      absent: zones.filter((f) => /heartrate zone object only/.test(f.notes)).map((f) => ({
        name: f.name,
        source: f.source,
      })),
    }),
  );

  // Segment: detailed; summary minus its list; starred-list extras.
  const segment = section(spec, "Segment", R);
  const segmentFields = tableFields(segment.tables[0]);
  const minus = paragraph(segment, "Summary representation: same minus");
  const minusNames = nameList(minus.rest);
  const minusSource = `spec line ${minus.line}: ${minus.text}`;
  add(rep("Segment detailed", segmentFields));
  const segmentSummary = rep("Segment summary", segmentFields.filter((f) => !minusNames.includes(f.name)), {
    absent: minusNames.map((name) => ({ name, source: minusSource })),
  });
  add(segmentSummary);
  const starred = paragraph(segment, "Starred-segment list items (summary) add:");
  const starredFields = listFields(starred.rest, starred.line, starred.text).map((f) =>
    f.name === "athlete_pr_effort" ? { ...f, notes: `${f.notes}; added where applicable` } : f
  );
  add({ ...segmentSummary, name: "Starred segment", fields: [...segmentSummary.fields, ...starredFields] });
  add(
    rep("Segment map", [
      mapField("id", segmentFields.find((f) => f.name === "map")!.source),
      mapField("polyline", segmentFields.find((f) => f.name === "map")!.source),
      mapField("resource_state", segmentFields.find((f) => f.name === "map")!.source),
    ]),
  );
  add(
    rep(
      "Explore item",
      latlngTyped(fromParagraph(section(spec, "Explore segment item (segments explore response)", R), "Fields:")),
    ),
  );
  const board = paragraph(section(spec, "Segment leaderboard response", R), "Object with");
  const [objectPart, entryPart] = board.rest.split("Entry fields:");
  const boardSource = `spec line ${board.line}: ${board.text}`;
  add(
    rep(
      "Leaderboard response",
      listFields(objectPart.replace(/ and /, ", "), board.line, board.text),
      {
        nested: { entries: "Leaderboard entry" },
        absent: /The field (\w+) is deprecated/.test(board.rest)
          ? [{ name: /The field (\w+) is deprecated/.exec(board.rest)![1], source: boardSource }]
          : [],
      },
    ),
  );
  add(rep("Leaderboard entry", listFields(entryPart, board.line, board.text)));

  // Club: the Representations column says where each field belongs.
  const clubFields = tableFields(clubSection.tables[0]);
  for (const level of ["meta", "summary", "detail"]) {
    const here = clubFields.filter((f) => f.representations!.includes(level) || f.representations!.includes("all"));
    const elsewhere = clubFields.filter((f) => !here.includes(f));
    const withMembership = level === "detail" ? membershipFields : [];
    add(
      rep(`Club ${level}`, [...here, ...withMembership], {
        absent: elsewhere.map((f) => ({ name: f.name, source: f.source })),
      }),
    );
  }
  add(rep("Club membership", membershipFields));

  const heatmap = tableFields(section(spec, "Heatmap", R).tables[0]);
  const progressOnly = heatmap.filter((f) => /only in progress responses/.test(f.notes));
  add(
    rep("Heatmap summary", heatmap.filter((f) => !progressOnly.includes(f)), {
      absent: progressOnly.map((f) => ({ name: f.name, source: f.source })),
      nested: { athlete: "Meta athlete" },
    }),
  );
  add(rep("Heatmap progress", heatmap, { nested: { athlete: "Meta athlete" } }));
  add(rep("Upload status", tableFields(section(spec, "Upload status", R).tables[0])));

  const challenge = section(spec, "Challenge", R);
  const challengeFields = tableFields(challenge.tables[0]);
  const detailOnly = challengeFields.filter((f) => /detailed representation only/.test(f.notes));
  add(rep("Challenge detailed", challengeFields));
  add(
    rep("Challenge summary", challengeFields.filter((f) => !detailOnly.includes(f)), {
      absent: detailOnly.map((f) => ({ name: f.name, source: f.source })),
    }),
  );
  add(rep("Challenge leaderboard entry", fromParagraph(challenge, "Challenge leaderboard entry:")));
  add(rep("Comment", fromParagraph(section(spec, "Comment", R), "Fields:"), { nested: { athlete: "Athlete" } }));
  return { reps, activityTypes };
}

/** An object's fields named in an Output cell ("object: success boolean, active boolean, membership string …"). */
export function outputFields(output: string, source: string): Field[] {
  const list = /object: (.*)$/.exec(output)?.[1] ?? "";
  return topLevelSplit(list).flatMap((item) => {
    const m = /^([a-z_]+)(?: \(([^)]*)\))?(?:\s+(string|boolean|integer))?(?:\s*\((.*)\))?$/.exec(item.trim());
    if (!m) return [];
    return [{ name: m[1], type: m[3] ?? "", notes: m[2] ?? m[4] ?? "", source }];
  });
}

/**
 * Whether null breaks a field's row. The spec writes "string or null" (friend, follower, error…) where
 * a string may be null, so a plain "string" never is: "" is the string without a value — unless the
 * row lists its values ('M' or 'F'), where "" is none of them, or says when the field applies. For
 * numbers, coordinates, arrays and objects the spec has no empty value: null is their absence (a
 * manual activity's elev_high, an activity without gear).
 */
function nullRefused(f: Field, activityTypes: string[]): boolean {
  if (f.type.trim().toLowerCase() !== "string") return false;
  return !conditional(f) && valuesOf(f, activityTypes) === undefined;
}

/** Where an answer leaves a representation: one line per failure, naming the spec's row. */
export function violations(
  value: unknown,
  repName: string,
  reps: Map<string, Representation>,
  activityTypes: string[],
  at = "",
): string[] {
  const r = reps.get(repName);
  if (!r) return [`${at || "answer"}: no representation "${repName}" in the spec`];
  if (!isObject(value)) return [`${at || "answer"}: not an object (${repName})`];
  const out: string[] = [];
  const path = (k: string) => (at ? `${at}.${k}` : k);
  for (const f of r.fields) {
    const v = value[f.name];
    if (v === undefined || v === null) {
      if (r.nulls?.some((n) => n.name === f.name)) continue;
      if (v === undefined && !conditional(f)) out.push(`${path(f.name)} (${repName}) is missing — ${f.source}`);
      if (v === null && nullRefused(f, activityTypes)) out.push(`${path(f.name)} (${repName}) is null — ${f.source}`);
      continue;
    }
    const ok = typeOk(v, f.type);
    if (ok === false) {
      out.push(`${path(f.name)} (${repName}) = ${JSON.stringify(v)?.slice(0, 60)} is not ${f.type} — ${f.source}`);
    }
    const values = valuesOf(f, activityTypes);
    if (values && !values.includes(v as string | number)) {
      out.push(`${path(f.name)} (${repName}) = ${JSON.stringify(v)} is none of ${values.join(", ")} — ${f.source}`);
    }
  }
  for (const a of r.absent) {
    if (a.name in value) out.push(`${path(a.name)} appears in a ${repName}, which omits it — ${a.source}`);
  }
  for (const n of r.nulls ?? []) {
    if (value[n.name] !== null) {
      out.push(`${path(n.name)} (${repName}) is ${JSON.stringify(value[n.name])}, not null — ${n.source}`);
    }
  }
  for (const [k, { keys, source }] of Object.entries(r.exactKeys ?? {})) {
    const v = value[k];
    if (isObject(v) && Object.keys(v).sort().join() !== keys.join()) {
      out.push(`${path(k)} (${repName}) holds ${Object.keys(v).join(", ")}, not only ${keys.join(", ")} — ${source}`);
    }
  }
  for (const [k, named] of Object.entries(r.nested)) {
    const v = value[k];
    if (v === undefined || v === null) continue;
    // "meta or summary athlete": resource_state says which (1 meta, 2 summary).
    const nested = named === "Meta or summary athlete"
      ? (isObject(v) && v.resource_state === 1 ? "Meta athlete" : "Athlete")
      : named;
    if (Array.isArray(v)) {
      v.forEach((item, i) => out.push(...violations(item, nested, reps, activityTypes, `${path(k)}.${i}`)));
    } else out.push(...violations(v, nested, reps, activityTypes, path(k)));
  }
  return out;
}
