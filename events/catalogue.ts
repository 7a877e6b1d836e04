import type { z } from "zod";

/** Turns the data of one schema version into the next version's shape. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

export interface EventDefinition<T, K extends string = string> {
  readonly type: K;
  /** Current schema version; stored events of older versions are upcast when read. */
  readonly version: number;
  readonly schema: z.ZodType<T>;
  readonly description: string;
  /** upcasters[n] turns version n data into version n + 1. */
  readonly upcasters: Readonly<Record<number, Upcaster>>;
  /** Builds an event of this type (validated when appended). */
  create(data: T): NewEvent<T, K>;
}

export interface NewEvent<T = unknown, K extends string = string> {
  type: K;
  data: T;
}

/** Declares one event type (pure: returns its definition; the catalogue in events/index.ts lists it). */
export function defineEvent<T, const K extends string>(spec: {
  type: K;
  version?: number;
  description: string;
  schema: z.ZodType<T>;
  upcasters?: Record<number, Upcaster>;
}): EventDefinition<T, K> {
  return {
    type: spec.type,
    version: spec.version ?? 1,
    schema: spec.schema,
    description: spec.description,
    upcasters: spec.upcasters ?? {},
    create: (data: T) => ({ type: spec.type, data }),
  };
}

/**
 * A set of event definitions, given to the store when it is created: the store validates appends
 * and upcasts reads against it, the analysts' tools look types up in it, docs/events.md lists it.
 */
export interface EventCatalogue {
  /** Every definition, sorted by type. */
  readonly definitions: readonly EventDefinition<unknown>[];
  /** The definition of a type, when the catalogue has one. */
  definition(type: string): EventDefinition<unknown> | undefined;
  /** Brings stored data of an older schema version up to the current shape (unknown types as they are). */
  upcast(type: string, schemaVersion: number, data: unknown): unknown;
}

/** Builds a catalogue from definitions. Types are unique: a type defined twice is refused. */
export function eventCatalogue(definitions: Iterable<EventDefinition<unknown>>): EventCatalogue {
  const byType = new Map<string, EventDefinition<unknown>>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`event type ${definition.type} defined twice`);
    byType.set(definition.type, definition);
  }
  const sorted = [...byType.values()].sort((a, b) => a.type.localeCompare(b.type));
  return {
    definitions: sorted,
    definition: (type) => byType.get(type),
    upcast(type, schemaVersion, data) {
      const definition = byType.get(type);
      if (!definition) return data;
      let current = data as Record<string, unknown>;
      for (let v = schemaVersion; v < definition.version; v++) {
        const step = definition.upcasters[v];
        if (!step) throw new Error(`no upcaster for ${type} v${v} → v${v + 1}`);
        current = step(current);
      }
      return current;
    },
  };
}

/** The data type of an event definition: EventData<typeof athleteRegistered>. */
export type EventData<D> = D extends EventDefinition<infer T, string> ? T : never;

/** The event an event definition builds: `{type: "AthleteRegistered", data: {...}}`. */
export type EventOf<D> = D extends EventDefinition<infer T, infer K> ? { type: K; data: T } : never;

/** The events every definition exported by some modules builds (non-definition exports are ignored). */
export type EventsOfModules<M> = { [F in keyof M]: EventOf<M[F][keyof M[F]]> }[keyof M];

/** Narrows an event to one definition's type. */
export function isEvent<T>(
  event: { type: string; data: unknown },
  definition: EventDefinition<T>,
): event is { type: string; data: T } & typeof event {
  return event.type === definition.type;
}
