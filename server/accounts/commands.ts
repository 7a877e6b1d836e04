import { athleteStream } from "../../events/athlete/events.ts";
import { athleteDecider } from "../../events/athlete/decide.ts";
import { DomainError, forgetFoldedStates, handleCommand } from "../../events/decider.ts";
import { eraseAthleteFromLog, scrubDeletedRows } from "../../events/erasure.ts";
import { erasureCompleted, passwordHashOf, pendingErasures } from "../../projections/athletes/queries.ts";
import { tokenReadModelChanged } from "../../projections/applications/token-changes.ts";
import { authorizedApplications } from "../../projections/queries/authorized-applications.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { deleteBlobs } from "../blobs.ts";
import type { JobKind } from "../jobs/runner.ts";
import type { Platform } from "../platform.ts";
import { hashPassword, verifyPassword } from "../security.ts";
import { forgetSegmentIndex } from "../segments/segment-index.ts";
import { forgetAthleteInOutbox } from "../webhooks/erasure.ts";
import { knownWebApplicationId } from "../sessions/web-application.ts";
import { endSessions, revokeTokensOfSessions } from "../sessions/session-tokens.ts";
import { passwordCostOf } from "../athletes/commands.ts";
import { revokeAuthorization } from "../oauth/commands.ts";

/**
 * The athlete's own account (issue 29 item 11): change the password, sign out everywhere, delete
 * the account. See docs/accounts.md.
 */

/** Refuses (401 `Athlete password invalid`) unless `password` is the athlete's current password. */
export async function checkPassword(platform: Platform, athleteId: number, password: string): Promise<void> {
  const stored = await passwordHashOf(platform.db, athleteId);
  const checked = stored ? await verifyPassword(password, stored, passwordCostOf(platform.config)) : { ok: false };
  if (!checked.ok) throw new DomainError("unauthorized", "Athlete", "password", "invalid");
}

/**
 * Changes the password (the current one is required; the new one has at least 8 characters) and
 * ends every other web session of the athlete with its page tokens; `keep` is the id hash of the
 * session asking, which stays signed in.
 */
export async function changePassword(
  platform: Platform,
  athleteId: number,
  input: { current: string; next: string },
  keep: string | undefined,
  actor: Actor,
): Promise<{ sessions: number; tokens: number }> {
  await checkPassword(platform, athleteId, input.current);
  if (input.next.length < 8) throw new DomainError("invalid", "Athlete", "password", "too short");
  const passwordHash = await hashPassword(input.next, passwordCostOf(platform.config));
  await handleCommand(platform.store, athleteStream(athleteId), athleteDecider, {
    type: "changePassword",
    athleteId,
    passwordHash,
    passwordLength: input.next.length,
  }, appendOptions(actor));
  return await endSessions(platform, athleteId, keep, "password changed");
}

/** Ends every web session of the athlete but `keep` (none: all), with their page tokens. */
export function signOutEverywhere(
  platform: Platform,
  athleteId: number,
  keep?: string,
): Promise<{ sessions: number; tokens: number }> {
  return endSessions(platform, athleteId, keep, "signed out everywhere");
}

export interface Erasure {
  events: number;
  streams: number;
  blobs: number;
  sessions: number;
}

/**
 * Deletes the account (the password confirmed): AthleteErased is appended (the athletes read
 * model drops the athlete at once and queues the erasure), then the erasure job does the rest
 * (`completeErasure`) and this waits for it: every web session and page token ends, the log is
 * rewritten (events/erasure.ts: the athlete's events go, AthleteErased stays), blobs only those
 * events named are deleted with their files, the read models are rebuilt from the rewritten log —
 * so the live read models are, by construction, what any later replay gives — and
 * AthleteErasureCompleted records it. A crash in between leaves the erasure pending: the job
 * resumes it at the next start.
 */
export async function eraseAccount(
  platform: Platform,
  athleteId: number,
  password: string,
  actor: Actor,
): Promise<{ completed: boolean }> {
  await checkPassword(platform, athleteId, password);
  await handleCommand(
    platform.store,
    athleteStream(athleteId),
    athleteDecider,
    { type: "erase", athleteId },
    appendOptions(actor),
  );
  // Sessions and the applications' grants end now, before the job runs: nothing more is done in
  // the athlete's name (the applications are told as at any deauthorization).
  await endSessions(platform, athleteId, undefined, "account deleted");
  for (const app of await authorizedApplications(platform.db, athleteId, await knownWebApplicationId(platform))) {
    await revokeAuthorization(platform, athleteId, app.id, "account deleted");
  }
  platform.jobs.kick();
  // The job may run on another server (RUN_JOBS=0 here): the answer does not wait for ever; the
  // account is already gone from every page and the job finishes the rest.
  const deadline = Date.now() + 5 * 60_000;
  while (!(await erasureCompleted(platform.db, athleteId))) {
    if (Date.now() > deadline) return { completed: false };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { completed: true };
}

/** One erasure at a time in this process (each rebuilds the read models). */
const erasing = new WeakMap<Platform, Promise<unknown>>();

/** The rewrite, blob deletion and rebuild after AthleteErased (idempotent: a resumed job repeats it). */
export function completeErasure(platform: Platform, athleteId: number): Promise<Erasure> {
  const previous = erasing.get(platform) ?? Promise.resolve();
  const run = previous.then(() => eraseNow(platform, athleteId), () => eraseNow(platform, athleteId));
  erasing.set(platform, run.catch(() => {}));
  return run;
}

async function eraseNow(platform: Platform, athleteId: number): Promise<Erasure> {
  const ended = await endSessions(platform, athleteId, undefined, "account deleted");
  await revokeTokensOfSessions(platform, { athleteId }, "account deleted");
  const total: Erasure = { events: 0, streams: 0, blobs: 0, sessions: ended.sessions };
  for (let pass = 0; pass < 3; pass++) {
    const erased = await eraseAthleteFromLog(platform.db, athleteId);
    if (pass > 0 && erased.events === 0) break;
    total.events += erased.events;
    total.streams += erased.streams;
    total.blobs += await deleteBlobs(platform.db, erased.orphanBlobs);
    forgetFoldedStates(platform.store);
    forgetSegmentIndex(platform.db);
    await platform.projections.replay();
    tokenReadModelChanged();
    await forgetAthleteInOutbox(platform.db, athleteId);
  }
  // The bytes too: no old version of the deleted rows stays in the database's files or its WAL
  // (issue #41 item 3). Before AthleteErasureCompleted: a crash in between repeats it at the next start.
  const scrubbed = await scrubDeletedRows(platform.db, { blobs: total.blobs > 0 });
  if (!platform.config.quiet) {
    console.log(
      `erasure of athlete ${athleteId}: ${scrubbed.tables} tables rewritten, WAL checkpointed in ${scrubbed.seconds} s`,
    );
  }
  if (scrubbed.refused.length) {
    console.error(
      `erasure of athlete ${athleteId}: the database refused ${scrubbed.refused.length} statement(s) of the scrub: ${
        scrubbed.refused.join("; ")
      } (docs/accounts.md, "Erasure on disk")`,
    );
  }
  await handleCommand(platform.store, athleteStream(athleteId), athleteDecider, {
    type: "completeErasure",
    result: { athleteId, events: total.events, streams: total.streams, blobs: total.blobs },
  }, appendOptions(systemActor("erasure")));
  return total;
}

/** The durable job that completes erasures (server/job-kinds.ts): pending from the athletes read model. */
export function erasureJob(platform: Platform): JobKind {
  return {
    kind: "athlete-erasure",
    async pending(db, limit) {
      return (await pendingErasures(db, limit)).map(String);
    },
    async run(id) {
      await completeErasure(platform, Number(id));
    },
  };
}
