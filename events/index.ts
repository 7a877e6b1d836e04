/**
 * The event catalogue, listed explicitly: one line per event family. `catalogue` holds every
 * definition (given to the store, which validates appends and upcasts reads against it);
 * `CatalogueEvent` is the discriminated union of every event, so a `switch (event.type)` narrows
 * `event.data` without casts.
 */
import {
  type EventCatalogue,
  eventCatalogue,
  type EventDefinition,
  type EventsOfModules,
  type NewEvent,
} from "./catalogue.ts";
import type { RecordedEvent } from "./types.ts";
import * as platform from "./platform/events.ts";
import * as athlete from "./athlete/events.ts";
import * as application from "./application/events.ts";
import * as activity from "./activity/events.ts";
import * as activityReprocessed from "./activity/reprocessed.ts";
import * as activityCropped from "./activity/cropped.ts";
import * as activityChanges from "./activity/changes.ts";
import * as gear from "./gear/events.ts";
import * as oauth from "./oauth/events.ts";
import * as club from "./club/events.ts";
import * as challenge from "./challenge/events.ts";
import * as privacyZone from "./privacy-zone/events.ts";
import * as heatmap from "./heatmap/events.ts";
import * as segment from "./segment/events.ts";
import * as upload from "./upload/events.ts";
import * as pushSubscription from "./push-subscription/events.ts";
import * as route from "./route/events.ts";
import * as archiveImport from "./archive-import/events.ts";
import * as athletePicture from "./athlete-picture/events.ts";
import * as goal from "./goal/events.ts";

const families = {
  platform,
  athlete,
  application,
  activity,
  activityReprocessed,
  activityCropped,
  activityChanges,
  gear,
  oauth,
  club,
  challenge,
  privacyZone,
  heatmap,
  segment,
  upload,
  pushSubscription,
  route,
  archiveImport,
  athletePicture,
  goal,
};

/** Any event of the catalogue, discriminated by `type`. */
export type CatalogueEvent = EventsOfModules<typeof families>;

/** The catalogue's event types. */
export type EventType = CatalogueEvent["type"];

/** One event type's event: `EventOfType<"ClubJoined">`. */
export type EventOfType<K extends EventType> = Extract<CatalogueEvent, { type: K }>;

/** A recorded event, discriminated by `type` like `CatalogueEvent`. */
export type StoredEvent = CatalogueEvent extends infer E
  ? E extends CatalogueEvent ? Omit<RecordedEvent, "type" | "data"> & E : never
  : never;

/** One event type's recorded event: `StoredEventOfType<"ClubJoined">`. */
export type StoredEventOfType<K extends EventType> = Extract<StoredEvent, { type: K }>;

function isDefinition(value: unknown): value is EventDefinition<unknown> {
  return typeof value === "object" && value !== null && "schema" in value && "create" in value && "type" in value;
}

/**
 * The platform's catalogue: every definition the families above export, built once (a type defined
 * twice is refused here). It is given to the store when it is opened (server/platform.ts); nothing
 * looks event types up anywhere else.
 */
export const catalogue: EventCatalogue = eventCatalogue(
  Object.values(families).flatMap((family) => Object.values(family).filter(isDefinition)),
);

/**
 * A stored event as one of the catalogue's: the store validated its data against the type's schema
 * when it was appended and upcasts it to the current version when read, so the type holds. The one
 * place that asserts it.
 */
export function catalogued(event: RecordedEvent): StoredEvent;
export function catalogued(event: NewEvent): CatalogueEvent;
export function catalogued(event: NewEvent): CatalogueEvent {
  return event as CatalogueEvent;
}

/** Whether an event is of one of the listed types (narrows `event.data` to their union). */
export function isOneOf<E extends { type: string }, K extends E["type"]>(
  event: E,
  types: readonly K[],
): event is Extract<E, { type: K }> {
  return (types as readonly string[]).includes(event.type);
}

/** The first (or with `last`, the last) event of one of the types in a stream's history, typed. */
export function findEvent<K extends EventType>(
  history: readonly RecordedEvent[],
  types: K | readonly K[],
  last = false,
): StoredEventOfType<K> | undefined {
  const wanted: readonly string[] = typeof types === "string" ? [types] : types;
  const events = last ? [...history].reverse() : history;
  const found = events.find((e) => wanted.includes(e.type));
  return found ? (catalogued(found) as StoredEventOfType<K>) : undefined;
}

export { type EventCatalogue, eventCatalogue } from "./catalogue.ts";
