import type { NewEvent } from "./catalogue.ts";
import type { CatalogueEvent } from "./index.ts";
import type { AppendOptions, ConditionSql, EventStore } from "./store.ts";
import { type AppendResult, ConcurrencyError, ConditionNotMetError } from "./types.ts";

/** Why a command was refused; the server maps the kind onto an HTTP status. */
export type DomainErrorKind = "invalid" | "not_found" | "forbidden" | "conflict" | "unauthorized";

/** A business rule refused a command (typed, never a crash). */
export class DomainError extends Error {
  /** Every field the rule refused (the first is `field`/`code`): the API answers one triple each. */
  readonly problems: readonly { field: string; code: string }[];

  constructor(
    readonly kind: DomainErrorKind,
    readonly resource: string,
    readonly field: string,
    readonly code: string,
    message?: string,
    more: readonly { field: string; code: string }[] = [],
  ) {
    super(message ?? `${resource}.${field}: ${code}`);
    this.name = "DomainError";
    this.problems = [{ field, code }, ...more];
  }

  /** One refusal naming every bad field of a command (`errors` holds at least one). */
  static all(errors: readonly DomainError[]): DomainError {
    const [first, ...rest] = errors;
    if (rest.length === 0) return first;
    const more = rest.flatMap((e) => e.problems);
    return new DomainError(
      first.kind,
      first.resource,
      first.field,
      first.code,
      errors.map((e) => e.message).join("; "),
      more,
    );
  }
}

/**
 * Business rules as pure functions: state + command → events, or a DomainError thrown. `Event` is
 * the union of the events of the decider's stream (e.g. `ClubEvent` of `club-<id>`), part of the
 * catalogue's discriminated union: `decide` can only return them, `evolve` only receives them, and
 * `switch (event.type)` narrows `event.data`.
 */
export interface Decider<State, Command, Event extends CatalogueEvent> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
  /**
   * For a command that can be decided without reading its stream first (`handleAssumed`): the
   * state it is decided on, and the SQL condition over the stream's events (`sql.stream`) that is
   * true exactly when the stream's real state gives the same decision. Undefined: not for this command.
   */
  assume?(command: Command): Assumption<State> | undefined;
}

/** An optimistic decision's state, and when the stream's events agree with it (see `Decider.assume`). */
export interface Assumption<State> {
  state: State;
  holds(sql: ConditionSql): string;
}

/**
 * A stream's event as one of its deciders' events: the store validated it against the catalogue
 * when it was appended, and a stream holds only what its deciders decided (every append goes
 * through `handleCommand`). The one place that asserts it; an `evolve` still ignores a type it
 * does not know (its `default`), as it always did.
 */
function streamEvent<Event extends CatalogueEvent>(event: NewEvent): Event {
  return event as Event;
}

/** Folds a stream's events (read from the store, so of the catalogue) into a decider's state. */
export function fold<State, Event extends CatalogueEvent>(
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  events: readonly NewEvent[],
): State {
  return events.reduce((state, event) => decider.evolve(state, streamEvent<Event>(event)), decider.initialState());
}

/** Commands on one stream within this process run one after another (per store). */
const streamQueues = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

function oneAtATime<T>(store: EventStore, streamId: string, run: () => Promise<T>): Promise<T> {
  let queues = streamQueues.get(store);
  if (!queues) streamQueues.set(store, queues = new Map());
  const previous = queues.get(streamId) ?? Promise.resolve();
  const result = previous.then(run, run);
  const tail = result.then(() => {}, () => {});
  queues.set(streamId, tail);
  void tail.then(() => {
    if (queues.get(streamId) === tail) queues.delete(streamId);
  });
  return result;
}

/**
 * Folded states by store, decider and stream: { version, state } after the stream's first
 * `version` events. A stream only grows, so a command reads just the events after the cached
 * version (on several servers too) — a kudos on a 6 h ride no longer re-reads and folds the
 * ride's half-megabyte upload facts. Bounded per decider (least recently used dropped).
 */
const folded = new WeakMap<EventStore, WeakMap<object, Map<string, { version: number; state: unknown }>>>();
const FOLDED_PER_DECIDER = 10_000;

function foldedStates(store: EventStore, decider: object): Map<string, { version: number; state: unknown }> {
  let byDecider = folded.get(store);
  if (!byDecider) folded.set(store, byDecider = new WeakMap());
  let states = byDecider.get(decider);
  if (!states) byDecider.set(decider, states = new Map());
  return states;
}

/**
 * Forgets every folded state of a store: after the log's one sanctioned rewrite (an athlete's
 * erasure, events/erasure.ts) removed events from streams whose folds this process holds.
 */
export function forgetFoldedStates(store: EventStore): void {
  folded.delete(store);
  store.forgetVersions();
}

/** Whether this process holds the stream's fold as of its last event (a command then reads nothing). */
export function foldIsCurrent(store: EventStore, streamId: string, decider: object): boolean {
  const cached = folded.get(store)?.get(decider)?.get(streamId);
  return !!cached && store.knownVersion(streamId) === cached.version;
}

/** The stream's current state: the cached fold plus the events after it (or a full fold). */
async function currentState<State, Event extends CatalogueEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  states: Map<string, { version: number; state: unknown }>,
): Promise<{ version: number; state: State }> {
  const cached = states.get(streamId);
  // The fold is current when this store, the log's one writer, wrote the stream last at its version.
  if (cached && store.knownVersion(streamId) === cached.version) {
    return { version: cached.version, state: cached.state as State };
  }
  let base = cached ?? { version: 0, state: decider.initialState() };
  let newer = await store.readStream(streamId, base.version);
  if (cached && newer.length && newer[0].streamVersion !== cached.version + 1) {
    // Not a continuation of what was folded (never expected): fold the whole stream.
    base = { version: 0, state: decider.initialState() };
    newer = await store.readStream(streamId);
  }
  const current = {
    version: newer.length ? newer[newer.length - 1].streamVersion : base.version,
    state: newer.reduce((state, event) => decider.evolve(state, streamEvent<Event>(event)), base.state as State),
  };
  remember(states, streamId, current);
  return current;
}

function remember(
  states: Map<string, { version: number; state: unknown }>,
  streamId: string,
  entry: { version: number; state: unknown },
) {
  states.delete(streamId);
  states.set(streamId, entry);
  if (states.size > FOLDED_PER_DECIDER) states.delete(states.keys().next().value!);
}

/**
 * Loads the stream (the events after its cached fold), decides, appends with the version it read; on a conflict it re-decides on
 * fresh state (never overwrites). Returns the append result (no append when no events decided).
 * Commands on the same stream are queued within a process, so conflicts only come from other
 * processes (several servers on one PostgreSQL), at most one contender per process. A loser
 * retries at once on fresh state (a jitter of a few milliseconds only): sleeping longer would let
 * the other process's queue append again and again while this command waits, starving it (1 of
 * 1,000 kudos through two servers once lost 51 times in a row). It gives up only after
 * `deadlineMs` of conflicts.
 */
export function handleCommand<State, Command, Event extends CatalogueEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: AppendOptions & { deadlineMs?: number } = {},
): Promise<{ events: Event[]; state: State; result?: AppendResult }> {
  return oneAtATime(store, streamId, async () => {
    const giveUpAt = Date.now() + (options.deadlineMs ?? 30_000);
    const states = foldedStates(store, decider);
    for (let attempt = 0;; attempt++) {
      const { version, state } = await currentState(store, streamId, decider, states);
      const events = decider.decide(command, state);
      if (events.length === 0) return { events, state };
      try {
        const result = await store.append(streamId, version, events, options);
        const after = events.reduce((s, e) => decider.evolve(s, e), state);
        if (!result.duplicate) remember(states, streamId, { version: result.nextExpectedVersion, state: after });
        return { events, state: after, result };
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || Date.now() >= giveUpAt) throw error;
        states.delete(streamId); // decided on a stale fold: the retry reads the stream
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(4, attempt)));
      }
    }
  });
}

/**
 * One command on each of several distinct streams (an upload measuring the 200 segments it rode):
 * the streams read in one statement, each decided on its fold, and every decided event appended in
 * one transaction (`EventStore.appendMany`, all or nothing) — one round trip and one commit where
 * `handleCommand` per stream made a read, an append and a commit each. When another writer appended
 * to one of them meanwhile, nothing is written and each command runs through `handleCommand`
 * (which re-decides on fresh state). A refusal (DomainError) of any command is thrown, as from
 * `Promise.all` over `handleCommand`.
 */
export async function handleCommands<State, Command, Event extends CatalogueEvent>(
  store: EventStore,
  decider: Decider<State, Command, Event>,
  commands: readonly { streamId: string; command: Command }[],
  options: Pick<AppendOptions, "metadata"> = {},
): Promise<void> {
  if (commands.length === 0) return;
  const ids = commands.map((c) => c.streamId);
  if (new Set(ids).size !== ids.length) throw new Error("handleCommands needs distinct streams");
  const streams = await store.readStreams(ids);
  const appends = [];
  for (const { streamId, command } of commands) {
    const read = streams.get(streamId)!;
    const state = read.reduce((s, e) => decider.evolve(s, streamEvent<Event>(e)), decider.initialState());
    const events = decider.decide(command, state);
    if (events.length) {
      appends.push({ streamId, expectedVersion: read.length ? read[read.length - 1].streamVersion : 0, events });
    }
  }
  try {
    await store.appendMany(appends, options);
  } catch (error) {
    if (!(error instanceof ConcurrencyError)) throw error;
    await Promise.all(
      commands.map(({ streamId, command }) => handleCommand(store, streamId, decider, command, options)),
    );
  }
}

/**
 * A command decided without reading its stream: the decider decides on the state it assumes
 * (`Decider.assume`) and the append carries the assumption's condition, with `condition` (the
 * caller's own, e.g. the privacy engine's "may this athlete see the activity"), in its one
 * statement; when this process holds the stream's current fold, on that state instead, the append
 * checking the version and the caller's condition only. Returns undefined, having written nothing, when the decider assumes nothing for the
 * command, when a condition did not hold, or when another writer appended at the same version:
 * the caller then runs the command the ordinary way (its checks, `handleCommand`), which gives the
 * answer (a refusal, or the append on the state read). Queued with the stream's other commands.
 */
export function handleAssumed<State, Command, Event extends CatalogueEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: AppendOptions = {},
): Promise<{ events: Event[]; result: AppendResult } | undefined> {
  const assumption = decider.assume?.(command);
  if (!assumption) return Promise.resolve(undefined);
  return oneAtATime(store, streamId, async () => {
    const own = options.condition;
    const states = foldedStates(store, decider);
    const cached = states.get(streamId);
    const current = cached && store.knownVersion(streamId) === cached.version ? cached : undefined;
    let events: Event[];
    try {
      // With the stream's current fold the decider decides on the real state (then the append
      // checks only the version and the caller's condition); else on the state it assumes.
      events = decider.decide(command, current ? current.state as State : assumption.state);
    } catch (error) {
      // A refusal is answered the ordinary way, after the caller's own checks (a 404 before a 409).
      if (error instanceof DomainError) return undefined;
      throw error;
    }
    if (events.length === 0) return undefined;
    try {
      const result = current
        ? await store.append(streamId, current.version, events, { ...options, ...(own ? { condition: own } : {}) })
        : await store.append(streamId, "any", events, {
          ...options,
          condition: (sql) => own ? `(${assumption.holds(sql)}) and (${own(sql)})` : assumption.holds(sql),
        });
      // A fold that was current stays so: the events appended right after it are folded in.
      if (current && result.events[0].streamVersion === current.version + 1) {
        const state = events.reduce((s, e) => decider.evolve(s, e), current.state as State);
        remember(states, streamId, { version: result.nextExpectedVersion, state });
      }
      return { events, result };
    } catch (error) {
      if (error instanceof ConditionNotMetError || error instanceof ConcurrencyError) return undefined;
      throw error;
    }
  });
}
