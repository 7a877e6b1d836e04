import { expect } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import type { Platform } from "../../server/platform.ts";
import { api } from "../helpers/http.ts";

/** Concurrent writers for the crash-safety proofs, and the check that every acknowledged write survived. */
export interface Athlete {
  id: number;
  token: string;
}

/** What the servers acknowledged with a 2xx. */
export class Acked {
  activities = new Map<number, number>(); // activity id → owner index
  kudos: { activityId: number; owner: number; athleteId: number }[] = [];
  comments: { activityId: number; owner: number; text: string }[] = [];
  names = new Map<number, { acked: string; after: Set<string> }>();
  joins = new Set<number>();

  get total(): number {
    return this.activities.size + this.kudos.length + this.comments.length + this.joins.size;
  }
}

/** Athletes with write tokens of one internal, kudos-enabled application, created before any server runs. */
export async function crashAthletes(setup: Platform, count: number): Promise<Athlete[]> {
  const owner = await createAthlete(setup, {
    firstname: "Owner",
    lastname: "App",
    email: "owner@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Crash",
    ownerId: owner,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  const athletes: Athlete[] = [];
  for (let i = 0; i < count; i++) {
    const id = await createAthlete(setup, {
      firstname: `Rider${i}`,
      lastname: "Crash",
      email: `rider${i}@example.com`,
      password: "password123",
    });
    athletes.push({
      id,
      token: await issueToken(setup, {
        athleteId: id,
        applicationId: app.client_id,
        permissions: ["read", "write", "view_private"],
      }),
    });
  }
  return athletes;
}

/**
 * One athlete writing until stopped or until its server dies: activities, kudos, comments, edits,
 * a club join — at random after a first activity. A write whose request fails has an unknown
 * outcome and is not counted.
 */
export async function writer(
  acked: Acked,
  url: string,
  me: number,
  athletes: Athlete[],
  clubId: number,
  stop: { now: boolean },
) {
  const call = api(url);
  const { token } = athletes[me];
  let step = 0;
  while (!stop.now) {
    step++;
    try {
      const kind = step === 1 && acked.activities.size < athletes.length * 2 ? 1 : Math.floor(Math.random() * 5);
      if (kind === 1) {
        const res = await call("POST", "/v3/activities", {
          token,
          form: {
            name: `ride ${me}-${step}`,
            type: "Ride",
            start_date_local: "2026-05-01T08:00:00Z",
            elapsed_time: 3600,
            distance: 20000,
          },
        });
        if (res.status === 201) acked.activities.set(res.body.id, me);
      } else if (kind === 2) {
        const theirs = [...acked.activities].filter(([, owner]) => owner !== me).map(([id, owner]) => ({ id, owner }));
        const mine = new Set(acked.kudos.filter((k) => k.athleteId === athletes[me].id).map((k) => k.activityId));
        const target = theirs.find((a) => !mine.has(a.id));
        if (target) {
          const res = await call("POST", `/v3/activities/${target.id}/kudos`, { token });
          if (res.status >= 200 && res.status < 300) {
            acked.kudos.push({ activityId: target.id, owner: target.owner, athleteId: athletes[me].id });
          }
        }
      } else if (kind === 3) {
        const any = [...acked.activities][step % Math.max(acked.activities.size, 1)];
        if (any) {
          const text = `comment ${me}-${step}-${Math.random().toString(36).slice(2, 8)}`;
          const res = await call("POST", `/v3/activities/${any[0]}/comments`, { token, form: { text } });
          if (res.status >= 200 && res.status < 300) acked.comments.push({ activityId: any[0], owner: any[1], text });
        }
      } else if (kind === 4) {
        const own = [...acked.activities].find(([, owner]) => owner === me);
        if (own) {
          const name = `edited ${me}-${step}`;
          const entry = acked.names.get(own[0]) ?? { acked: "", after: new Set<string>() };
          entry.after.add(name);
          acked.names.set(own[0], entry);
          const res = await call("PUT", `/v3/activities/${own[0]}`, { token, form: { name } });
          if (res.status === 200) acked.names.set(own[0], { acked: name, after: new Set() });
        }
      } else if (kind === 0 && !acked.joins.has(me)) {
        const res = await call("POST", `/v3/clubs/${clubId}/join`, { token });
        if (res.status === 200 && res.body?.success) acked.joins.add(me);
      }
    } catch {
      return;
    }
  }
}

/** Every acknowledged write is there, read through the given servers in turn. */
export async function expectAllAcked(acked: Acked, urls: string[], athletes: Athlete[], clubId: number) {
  let n = 0;
  const call = () => api(urls[n++ % urls.length]);
  for (const [id, ownerIndex] of acked.activities) {
    const res = await call()("GET", `/v3/activities/${id}`, { token: athletes[ownerIndex].token });
    expect(res.status, `activity ${id}`).toBe(200);
    const names = acked.names.get(id);
    if (names?.acked) expect([names.acked, ...names.after]).toContain(res.body.name);
  }
  for (const k of acked.kudos) {
    const res = await call()("GET", `/v3/activities/${k.activityId}/kudos`, {
      token: athletes[k.owner].token,
      query: { per_page: 200 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((a: { id: number }) => a.id), `kudos on ${k.activityId}`).toContain(k.athleteId);
  }
  for (const c of acked.comments) {
    const res = await call()("GET", `/v3/activities/${c.activityId}/comments`, {
      token: athletes[c.owner].token,
      query: { per_page: 200 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((x: { text: string }) => x.text), `comment on ${c.activityId}`).toContain(c.text);
  }
  for (const me of acked.joins) {
    const res = await call()("GET", "/v3/athlete/clubs", { token: athletes[me].token });
    expect(res.body.map((x: { id: number }) => x.id)).toContain(clubId);
  }
}
