import { DomainError, handleCommand } from "../../events/decider.ts";
import { challengeDecider, type ChallengeFacts } from "../../events/challenge/decide.ts";
import { CHALLENGE_DIMENSIONS, CHALLENGE_TYPES, challengeStream } from "../../events/challenge/events.ts";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { yearInRange } from "../../shared/date-range.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { slugOf } from "../clubs/commands.ts";

export interface NewChallenge {
  name: string;
  type: string;
  dimension: string;
  goal: number;
  startDate: string;
  endDate: string;
  activityType?: string | null;
  segmentId?: number | null;
  externalUrl?: string | null;
  description?: string;
}

const invalid = (field: string, code = "invalid", message?: string) =>
  new DomainError("invalid", "Challenge", field, code, message);

function validDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || !yearInRange(Number(text.slice(0, 4)))) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** Creates a challenge (CLI, demo; the CLI's actor unless told). Every rule is checked before anything is recorded. */
export async function createChallenge(
  platform: Platform,
  input: NewChallenge,
  actor: Actor = systemActor("cli"),
): Promise<number> {
  const name = input.name.trim();
  if (!name) throw invalid("name", "missing");
  if (!(CHALLENGE_TYPES as readonly string[]).includes(input.type)) {
    throw invalid("type", "invalid", `type must be one of ${CHALLENGE_TYPES.join(", ")}`);
  }
  if (!(CHALLENGE_DIMENSIONS as readonly string[]).includes(input.dimension)) {
    throw invalid("dimension", "invalid", `dimension must be one of ${CHALLENGE_DIMENSIONS.join(", ")}`);
  }
  if (input.dimension === "pace" && input.type !== "SingleActivityChallenge") {
    throw invalid("dimension", "invalid", "pace is for single-activity challenges");
  }
  if (!Number.isInteger(input.goal) || input.goal < 0) {
    throw invalid("goal", "invalid", "goal must be a non-negative integer");
  }
  if (input.dimension === "pace" && input.goal <= 0) {
    throw invalid("goal", "invalid", "a pace goal is seconds per kilometre (> 0)");
  }
  if (!validDate(input.startDate)) throw invalid("start_date", "invalid", "start must be YYYY-MM-DD");
  if (!validDate(input.endDate)) throw invalid("end_date", "invalid", "end must be YYYY-MM-DD");
  if (input.endDate < input.startDate) throw invalid("end_date", "invalid", "end is before start");
  if (input.activityType && !(ACTIVITY_TYPES as readonly string[]).includes(input.activityType)) {
    throw invalid("activity_type");
  }
  if (input.type === "SegmentChallenge" && !input.segmentId) {
    throw invalid("segment_id", "missing", "a segment challenge needs --segment");
  }
  if (input.externalUrl && !/^https?:\/\/\S+$/.test(input.externalUrl)) {
    throw invalid("external_url", "invalid", "external url must be http(s)");
  }
  const challengeId = await nextId(platform.db, "challenge");
  const description = input.description?.trim() ?? "";
  const facts: ChallengeFacts = {
    name,
    type: input.type as ChallengeFacts["type"],
    dimension: input.dimension as ChallengeFacts["dimension"],
    goal: input.goal,
    startDate: input.startDate,
    endDate: input.endDate,
    activityType: input.activityType ?? null,
    segmentId: input.segmentId ?? null,
    externalUrl: input.externalUrl ?? null,
    description,
    mobileDescription: description,
    additionalInfo: "",
    rules: "",
    prizes: "",
    teaser: description.split("\n")[0].slice(0, 140),
    url: `${slugOf(name)}-${challengeId}`,
    logoUrl: "avatar/challenge/logo.png",
    color: "FC4C02",
    socialHashtag: name.replace(/[^A-Za-z0-9]+/g, ""),
  };
  await handleCommand(platform.store, challengeStream(challengeId), challengeDecider, {
    type: "create",
    challengeId,
    facts,
  }, appendOptions(actor));
  return challengeId;
}

/** Joins a challenge (nothing when already joined). */
export async function joinChallenge(
  platform: Platform,
  challengeId: number,
  athleteId: number,
  actor: Actor,
): Promise<void> {
  await handleCommand(
    platform.store,
    challengeStream(challengeId),
    challengeDecider,
    { type: "join", athleteId },
    appendOptions(actor),
  );
}

/** Leaves a challenge (nothing when not joined). */
export async function leaveChallenge(
  platform: Platform,
  challengeId: number,
  athleteId: number,
  actor: Actor,
): Promise<void> {
  await handleCommand(
    platform.store,
    challengeStream(challengeId),
    challengeDecider,
    { type: "leave", athleteId },
    appendOptions(actor),
  );
}
