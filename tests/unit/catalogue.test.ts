import { describe, expect, expectTypeOf, it } from "vitest";
import { clubJoined } from "../../events/club/events.ts";
import { allEventDefinitions, type CatalogueEvent, catalogue, catalogued, type EventOfType } from "../../events/index.ts";
import type { RecordedEvent } from "../../events/types.ts";

describe("the event catalogue", () => {
  it("lists every defined event type exactly once, explicitly", () => {
    expect(catalogue.map((d) => d.type)).toEqual(allEventDefinitions().map((d) => d.type));
    expect(new Set(catalogue.map((d) => d.type)).size).toBe(catalogue.length);
    expect(catalogue.map((d) => d.type)).toContain("ClubJoined");
    expect(catalogue.length).toBeGreaterThan(50);
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
