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

const registry = new Map<string, EventDefinition<unknown>>();

/** Declares one event type of the catalogue. Types are unique across the platform. */
export function defineEvent<T, const K extends string>(spec: {
  type: K;
  version?: number;
  description: string;
  schema: z.ZodType<T>;
  upcasters?: Record<number, Upcaster>;
}): EventDefinition<T, K> {
  if (registry.has(spec.type)) throw new Error(`event type ${spec.type} defined twice`);
  const definition: EventDefinition<T, K> = {
    type: spec.type,
    version: spec.version ?? 1,
    schema: spec.schema,
    description: spec.description,
    upcasters: spec.upcasters ?? {},
    create: (data: T) => ({ type: spec.type, data }),
  };
  registry.set(spec.type, definition as EventDefinition<unknown>);
  return definition;
}

export function eventDefinition(type: string): EventDefinition<unknown> | undefined {
  return registry.get(type);
}

export function allEventDefinitions(): EventDefinition<unknown>[] {
  return [...registry.values()].sort((a, b) => a.type.localeCompare(b.type));
}

/** Brings stored data of an older schema version up to the current shape. */
export function upcast(type: string, schemaVersion: number, data: unknown): unknown {
  const definition = registry.get(type);
  if (!definition) return data;
  let current = data as Record<string, unknown>;
  for (let v = schemaVersion; v < definition.version; v++) {
    const step = definition.upcasters[v];
    if (!step) throw new Error(`no upcaster for ${type} v${v} → v${v + 1}`);
    current = step(current);
  }
  return current;
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
