import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineEvent, type EventDefinition, eventCatalogue } from "../../events/catalogue.ts";
import { clubJoined } from "../../events/club/events.ts";
import { type CatalogueEvent, catalogue, catalogued, type EventOfType } from "../../events/index.ts";
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

  it("is a discriminated union: switching on type narrows data without casts", () => {
    expectTypeOf(clubJoined.create({ clubId: 1, athleteId: 2 }).type).toEqualTypeOf<"ClubJoined">();
    expectTypeOf<EventOfType<"ClubJoined">["data"]>().toEqualTypeOf<{ clubId: number; athleteId: number }>();
    const recorded: RecordedEvent = {
      position: 1, streamId: "club-1", streamVersion: 1, type: "ClubJoined", schemaVersion: 1,
      data: { clubId: 1, athleteId: 2 }, metadata: {}, recordedAt: "2024-01-01T00:00:00.000Z",
    };
    const event = catalogued(recorded);
    let athleteId = 0;
    if (event.type === "ClubJoined") athleteId = event.data.athleteId;
    expect(athleteId).toBe(2);
  });
});
