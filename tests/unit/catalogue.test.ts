import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineEvent, eventCatalogue, type EventDefinition } from "../../events/catalogue.ts";
import { athleteFollowed, type FollowEvent } from "../../events/athlete/events.ts";
import { type ClubCommand, clubDecider } from "../../events/club/decide.ts";
import { type ClubEvent, clubJoined } from "../../events/club/events.ts";
import type { Decider } from "../../events/decider.ts";
import { followDecider } from "../../events/follow/decide.ts";
import {
  catalogue,
  catalogued,
  type CatalogueEvent,
  type EventOfType,
  type EventType,
  isOneOf,
  type StoredEvent,
} from "../../events/index.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { ROOT } from "../helpers/deno.ts";

/** Every module under events/ that calls defineEvent. */
function definingModules(dir = join(ROOT, "events")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return definingModules(path);
    if (!entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) return [];
    return /\bdefineEvent\(/.test(readFileSync(path, "utf8")) && !path.endsWith("catalogue.ts") ? [path] : [];
  });
}

describe("the event catalogue", () => {
  it("lists every defined event type exactly once, explicitly", async () => {
    const types = catalogue.definitions.map((d) => d.type);
    expect(new Set(types).size).toBe(catalogue.definitions.length);
    expect(types).toContain("ClubJoined");
    expect(catalogue.definitions.length).toBeGreaterThan(50);
    // Every definition exported by a module under events/ is in the catalogue (none forgotten in
    // events/index.ts), and it is the very object the catalogue holds.
    const missing: string[] = [];
    for (const file of definingModules()) {
      const module: Record<string, unknown> = await import(pathToFileURL(file).href);
      for (const value of Object.values(module)) {
        if (typeof value !== "object" || value === null || !("schema" in value) || !("create" in value)) continue;
        const definition = value as EventDefinition<unknown>;
        if (catalogue.definition(definition.type) !== definition) {
          missing.push(`${relative(ROOT, file)}: ${definition.type}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("refuses a type defined twice when it is built; defining an event registers nothing", () => {
    const a = defineEvent({ type: "TestTwice", description: "test", schema: clubJoined.schema });
    const b = defineEvent({ type: "TestTwice", description: "test", schema: clubJoined.schema });
    expect(() => eventCatalogue([clubJoined, a, b])).toThrow("event type TestTwice defined twice");
    expect(catalogue.definition("TestTwice")).toBeUndefined();
    expect(eventCatalogue([a]).definition("TestTwice")).toBe(a);
  });

  // The type assertions below are checked by `npm run typecheck` (deno check over tests/), not by
  // vitest: an expectTypeOf that does not hold, or a @ts-expect-error line that no longer errs, fails
  // the type check. They pin what the docs promise: literal types, data narrowed by type, no `any`,
  // and deciders that only decide and fold their own stream's events.
  it("is a discriminated union: switching on type narrows data without casts", () => {
    expectTypeOf(clubJoined.create({ clubId: 1, athleteId: 2 }).type).toEqualTypeOf<"ClubJoined">();
    expectTypeOf<EventOfType<"ClubJoined">["data"]>().toEqualTypeOf<{ clubId: number; athleteId: number }>();
    expectTypeOf<CatalogueEvent>().not.toBeAny();
    expectTypeOf<CatalogueEvent["data"]>().not.toBeUnknown();
    expectTypeOf<EventType>().not.toEqualTypeOf<string>();
    const recorded: RecordedEvent = {
      position: 1,
      streamId: "club-1",
      streamVersion: 1,
      type: "ClubJoined",
      schemaVersion: 1,
      data: { clubId: 1, athleteId: 2 },
      metadata: {},
      recordedAt: "2024-01-01T00:00:00.000Z",
    };
    const event = catalogued(recorded);
    expectTypeOf(event).toEqualTypeOf<StoredEvent>();
    expectTypeOf(event).not.toBeAny();
    let athleteId = 0;
    if (event.type === "ClubJoined") {
      expectTypeOf(event.data).toEqualTypeOf<{ clubId: number; athleteId: number }>();
      expectTypeOf(event.position).toEqualTypeOf<number>();
      athleteId = event.data.athleteId;
    }
    if (isOneOf(event, ["ClubJoined", "ClubLeft"])) {
      expectTypeOf(event.type).toEqualTypeOf<"ClubJoined" | "ClubLeft">();
      expectTypeOf(event.data.clubId).toEqualTypeOf<number>();
    }
    expect(athleteId).toBe(2);
  });

  it("refuses wrong shapes at compile time (checked by npm run typecheck)", () => {
    // Never run: each line must stay a type error.
    const wrongShapes = (event: StoredEvent) => {
      // @ts-expect-error a ClubJoined's clubId is a number
      clubJoined.create({ clubId: "1", athleteId: 2 });
      // @ts-expect-error a ClubJoined has an athleteId
      clubJoined.create({ clubId: 1 });
      // @ts-expect-error no such event type in the catalogue
      type _Unknown = EventOfType<"ClubJoinedTwice">;
      if (event.type === "ClubJoined") {
        // @ts-expect-error a ClubJoined has no name
        void event.data.name;
      }
      // @ts-expect-error data is only known once the type is
      void event.data.clubId;
    };
    expect(typeof wrongShapes).toBe("function");
  });

  it("scopes a decider to its stream's events (checked by npm run typecheck)", () => {
    expectTypeOf<ClubEvent["type"]>().toEqualTypeOf<
      | "ClubCreated"
      | "ClubMemberInvited"
      | "ClubJoined"
      | "ClubMembershipRequested"
      | "ClubMembershipApproved"
      | "ClubMembershipDeclined"
      | "ClubLeft"
      | "ClubAdminPromoted"
      | "ClubAdminDemoted"
    >();
    expectTypeOf(clubDecider.decide).returns.toEqualTypeOf<ClubEvent[]>();
    expectTypeOf(clubDecider.evolve).parameter(1).toEqualTypeOf<ClubEvent>();
    expectTypeOf(followDecider.evolve).parameter(1).toEqualTypeOf<FollowEvent>();
    // Never run: each line must stay a type error.
    const wrongStreams = () => {
      const state = clubDecider.initialState();
      // @ts-expect-error a club's stream holds no follows
      clubDecider.evolve(state, athleteFollowed.create({ athleteId: 1, targetId: 2 }));
      const wrong: Decider<typeof state, ClubCommand, ClubEvent> = {
        ...clubDecider,
        // @ts-expect-error a club decider decides only club events
        decide: () => [athleteFollowed.create({ athleteId: 1, targetId: 2 })],
      };
      return wrong;
    };
    expect(typeof wrongStreams).toBe("function");
  });
});
