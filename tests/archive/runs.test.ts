import { describe, expect, it } from "vitest";
import { archiveImportDecider } from "../../events/archive-import/decide.ts";
import { DomainError, fold } from "../../events/decider.ts";
import type { NewEvent } from "../../events/catalogue.ts";

/** The rules of a durable archive import (events/archive-import/decide.ts), command by command. */
const importId = "0123456789abcdef";
const start = {
  type: "start" as const,
  start: { importId, athleteId: 7, fileName: "export.zip", via: "api" as const, archiveFile: "ab12.zip", bytes: 1234 },
};
const progress = (keys: string[], total = 10, failed: { file: string; error: string }[] = []) => ({
  type: "progress" as const,
  progress: {
    importId,
    athleteId: 7,
    layout: "strava" as const,
    total,
    entries: keys.map((key) => ({ key, outcome: "imported" as const })),
    failed,
  },
});

function run(commands: Parameters<typeof archiveImportDecider.decide>[0][]): NewEvent[] {
  const events: NewEvent[] = [];
  for (const command of commands) {
    events.push(...archiveImportDecider.decide(command, fold(archiveImportDecider, events)));
  }
  return events;
}

describe("archive import decider", () => {
  it("counts an entry once however often a resumed run reports it, and keeps the keys to skip", () => {
    const events = run([
      start,
      progress(["1", "2"]),
      { type: "resume", importId, athleteId: 7 },
      progress(["2", "3", "3"]),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "ArchiveImportStarted",
      "ArchiveImportProgressed",
      "ArchiveImportResumed",
      "ArchiveImportProgressed",
    ]);
    expect((events[3].data as { entries: { key: string }[] }).entries.map((e) => e.key)).toEqual(["3"]);
    expect([...fold(archiveImportDecider, events).done].sort()).toEqual(["1", "2", "3"]);
  });

  it("writes no checkpoint when nothing changed, one when the total or failures did", () => {
    expect(run([start, progress(["1"]), progress(["1"])]).length).toBe(2);
    expect(run([start, progress(["1"]), progress([], 12)]).length).toBe(3);
    expect(run([start, progress([], 10, [{ file: "media/x.jpg", error: "not a photo" }])]).length).toBe(2);
  });

  it("ends once: after the finish, checkpoints and resumes are dropped; nothing before the start", () => {
    const finish = {
      type: "finish" as const,
      finish: { importId, athleteId: 7, outcome: "done" as const, error: null },
    };
    const events = run([
      start,
      progress(["1"]),
      finish,
      progress(["2"]),
      { type: "resume", importId, athleteId: 7 },
      finish,
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "ArchiveImportStarted",
      "ArchiveImportProgressed",
      "ArchiveImportFinished",
    ]);
    expect(() => run([progress(["1"])])).toThrow(DomainError);
    expect(() => run([start, start])).toThrow(/already exists/);
  });
});
