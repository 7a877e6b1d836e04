import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import { segmentCreated, type SegmentEvent } from "./events.ts";

type Created = EventData<typeof segmentCreated>;

/** Whether the segment (stream segment-<id>) was created. */
export interface CreationState {
  created: boolean;
}

/**
 * What the privacy engine found about the stretch a segment is cut from (server/segments/create.ts
 * asks it): whether the activity is hidden from the public, and whether the stretch reaches into the
 * owner's privacy zones (at its start, or elsewhere).
 */
export interface CutFacts {
  fromPrivateActivity: boolean;
  stretch: "ok" | "start_in_zone" | "end_in_zone";
}

export type CreationCommand = { type: "create"; segment: Created; cut: CutFacts | null };

/**
 * Creating a segment, once per id. Refused (400, naming the field): an empty name; fewer than two
 * points or no length; a public segment cut from a private activity (`private`: others read
 * segments); a stretch reaching into the owner's privacy zones (`start_index` when it starts in
 * one, else `end_index`). A second create on the same id is a conflict.
 */
export const segmentCreationDecider: Decider<CreationState, CreationCommand, SegmentEvent> = {
  initialState: () => ({ created: false }),
  evolve(state: CreationState, event: SegmentEvent): CreationState {
    return event.type === segmentCreated.type ? { created: true } : state;
  },
  decide(command: CreationCommand, state: CreationState): SegmentEvent[] {
    const s = command.segment;
    if (state.created) throw new DomainError("conflict", "Segment", "id", "already exists");
    if (!s.name.trim()) throw new DomainError("invalid", "Segment", "name", "missing");
    if (s.points.length < 2 || !(s.distance > 0)) throw new DomainError("invalid", "Segment", "points", "invalid");
    if (command.cut?.fromPrivateActivity && !s.private) {
      throw new DomainError(
        "invalid",
        "Segment",
        "private",
        "invalid",
        "a segment cut from a private activity must be private",
      );
    }
    if (command.cut && command.cut.stretch !== "ok") {
      const field = command.cut.stretch === "start_in_zone" ? "start_index" : "end_index";
      throw new DomainError("invalid", "Segment", field, "invalid", "the stretch reaches into a privacy zone");
    }
    return [segmentCreated.create({ ...s, name: s.name.trim() })];
  },
};
