import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { activityStream } from "../../events/activity/events.ts";
import { athleteProfileUpdated, athleteStream } from "../../events/athlete/events.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { followCommands } from "../../server/athletes/cli.ts";
import { segmentCommands } from "../../server/segments/cli.ts";
import { nextId } from "../../server/ids.ts";
import { effortIdFor } from "../../server/segments/efforts.ts";
import { birthdateBounds, weightBounds } from "../../server/segments/leaderboard.ts";
import type { Visibility } from "../../shared/visibility.ts";
import type { Config } from "../../server/config.ts";
import { startTestServer, type TestAthlete, type TestServer } from "./server.ts";

/**
 * The leaderboard's maintained read model (bests, per-period bests, ranked counts) against a
 * brute-force board computed here from the efforts recorded: every filter, pages, context rows,
 * ties, only-me and followers-only efforts (the latter seen by the athlete and those who follow them),
 * profile changes, visibility changes, follows, deletions — then replay equals live (cli verify). It
 * runs on the store its caller gives (PGlite in tests/api, PostgreSQL in tests/postgres).
 */
export function leaderboardSuite(
  store: string,
  config: () => Promise<Partial<Config>>,
  after?: () => Promise<void>,
): void {
  let server: TestServer;
  let segment: number;
  let club: number;
  const athletes: (TestAthlete & { sex: "M" | "F"; birthdate: string; weight: number })[] = [];
  interface Effort {
    athleteId: number;
    activityId: number;
    effortId: bigint;
    elapsed: number;
    date: string;
    visibility: Visibility;
  }
  const efforts: Effort[] = [];

  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const now = new Date();
  const daysAgo = (n: number) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - n, 7, 30)).toISOString();

  async function record(athleteId: number, elapsed: number, date: string, visibility: Visibility) {
    const activityId = await nextId(server.platform.db, "activity");
    const effortId = effortIdFor(activityId, 0);
    await server.platform.store.append(activityStream(activityId), "any", [segmentEffortsMatched.create({
      activityId,
      athleteId,
      activityType: "Run",
      visibility,
      prCount: 0,
      achievementCount: 0,
      efforts: [{
        effortId,
        segmentId: segment,
        name: "Board",
        startIndex: 0,
        endIndex: 10,
        startDate: date,
        startDateLocal: date,
        elapsedTime: elapsed,
        movingTime: elapsed,
        distance: 1000,
        averageHeartrate: null,
        maxHeartrate: null,
        averageWatts: null,
        averageCadence: null,
        komRank: null,
        prRank: null,
        achievements: [],
        hidden: true,
      }],
    })]);
    efforts.push({ athleteId, activityId, effortId: BigInt(effortId), elapsed, date, visibility });
  }

  type Query = Record<string, string | number | boolean>;

  /** The board as the rules define it, computed from scratch. */
  function expected(viewer: TestAthlete, query: Query, follows: Map<number, Set<number>>, members: Set<number>) {
    const today = new Date();
    const y = today.getUTCFullYear(), m = today.getUTCMonth(), d = today.getUTCDate();
    const starts: Record<string, Date> = {
      this_year: new Date(Date.UTC(y, 0, 1)),
      this_month: new Date(Date.UTC(y, m, 1)),
      this_week: new Date(Date.UTC(y, m, d - ((today.getUTCDay() + 6) % 7))),
      today: new Date(Date.UTC(y, m, d)),
    };
    const from = query.date_range ? starts[query.date_range as string].toISOString() : null;
    const best = new Map<number, Effort>();
    // What the viewer may see: everyone's efforts, and followers-only ones of their own and of those they follow.
    const sees = (e: Effort) =>
      e.visibility === "everyone" ||
      (e.visibility === "followers_only" &&
        (e.athleteId === viewer.id || (follows.get(viewer.id)?.has(e.athleteId) ?? false)));
    for (const e of efforts) {
      if (!sees(e) || (from && e.date < from)) continue;
      const b = best.get(e.athleteId);
      if (
        !b || e.elapsed < b.elapsed ||
        (e.elapsed === b.elapsed && (e.date < b.date || (e.date === b.date && e.effortId < b.effortId)))
      ) {
        best.set(e.athleteId, e);
      }
    }
    const who = new Map(athletes.map((a) => [a.id, a]));
    let rows = [...best.values()].filter((e) => {
      const a = who.get(e.athleteId)!;
      if (query.gender && a.sex !== query.gender) return false;
      if (query.age_group) {
        const [after, atMost] = birthdateBounds(query.age_group as string, today);
        if ((after && a.birthdate <= after) || (atMost && a.birthdate > atMost)) return false;
      }
      if (query.weight_class) {
        const [lower, upper] = weightBounds(query.weight_class as string);
        if ((lower !== null && a.weight < lower) || (upper !== null && a.weight >= upper)) return false;
      }
      if (query.following && e.athleteId !== viewer.id && !follows.get(viewer.id)?.has(e.athleteId)) return false;
      if (query.club_id !== undefined && !members.has(e.athleteId)) return false;
      return true;
    });
    rows = rows.sort((p, q) =>
      p.elapsed - q.elapsed || (p.date < q.date ? -1 : p.date > q.date ? 1 : 0) || (p.effortId < q.effortId ? -1 : 1)
    );
    const ranks = rows.map((r) => rows.findIndex((s) => s.elapsed === r.elapsed));
    const perPage = Number(query.per_page ?? 10),
      page = Number(query.page ?? 1),
      k = Number(query.context_entries ?? 2);
    const positions = new Set<number>();
    for (let i = (page - 1) * perPage; i < Math.min(rows.length, page * perPage); i++) positions.add(i);
    const mine = rows.findIndex((r) => r.athleteId === viewer.id);
    if (mine >= 0) {
      for (let i = Math.max(0, mine - k); i <= Math.min(rows.length - 1, mine + k); i++) {
        positions.add(i);
      }
    }
    return {
      entry_count: rows.length,
      entries: [...positions].sort((p, q) => p - q).map((i) => ({
        athlete_id: rows[i].athleteId,
        elapsed_time: rows[i].elapsed,
        rank: ranks[i],
      })),
    };
  }

  const follows = new Map<number, Set<number>>();
  const members = new Set<number>();
  const viewer0 = () => athletes[0];
  const follow = async (who: TestAthlete, target: TestAthlete) => {
    await followCommands[0].run(server.platform, { athlete: String(who.id), target: String(target.id) }, {
      progress() {},
      interactive: false,
    });
    follows.set(who.id, (follows.get(who.id) ?? new Set()).add(target.id));
  };

  beforeAll(async () => {
    server = await startTestServer(await config());
    const made = await segmentCommands[0].run(server.platform, {
      name: "Ranked",
      "activity-type": "Run",
      points: "44.1,6.1,10;44.105,6.105,40",
    }, { progress() {}, interactive: false }) as { id: number };
    segment = made.id;
    for (let k = 0; k < 36; k++) {
      const sex = k % 3 === 0 ? "M" : "F";
      const birthdate = `${now.getUTCFullYear() - 18 - Math.floor(random() * 60)}-${
        String(1 + Math.floor(random() * 12)).padStart(2, "0")
      }-15`;
      const weight = 50 + Math.floor(random() * 50);
      const a = await server.athlete({ firstname: `L${k}`, lastname: "Rank", sex, birthdate, weight, premium: true });
      athletes.push({ ...a, sex, birthdate, weight });
    }
    for (const a of athletes) {
      const n = 1 + Math.floor(random() * 4);
      for (let i = 0; i < n; i++) {
        // Few distinct times (ties), dates from today back over ~2 years, some only-me, some followers-only.
        const r = random();
        await record(
          a.id,
          200 + Math.floor(random() * 12) * 5,
          daysAgo(pick([0, 0, 1, 3, 9, 20, 40, 200, 500])),
          r < 0.15 ? "only_me" : r < 0.35 ? "followers_only" : "everyone",
        );
      }
    }
    const viewer = athletes[0];
    for (const target of athletes.slice(1, 12).filter((_, i) => i % 2 === 0)) await follow(viewer, target);
    // A member of the club below who follows a few athletes, members and not.
    for (const target of [athletes[21], athletes[24], athletes[5]]) await follow(athletes[25], target);
    const created = await server.api("POST", "/v3/clubs", { token: viewer.token, form: { name: "Rank club" } });
    club = created.body.id;
    members.add(viewer.id);
    for (const a of athletes.slice(20, 30)) {
      expect((await server.api("POST", `/v3/clubs/${club}/join`, { token: a.token })).status).toBe(200);
      members.add(a.id);
    }
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await after?.();
  });

  const FILTERS: Query[] = [
    {},
    { gender: "F" },
    { gender: "M" },
    { age_group: "25_34" },
    { age_group: "35_44" },
    { age_group: "55_64" },
    { age_group: "75_plus" },
    { weight_class: "65_74" },
    { weight_class: "150_164" },
    { following: true },
    { club_id: 0 },
    { date_range: "this_year" },
    { date_range: "this_month" },
    { date_range: "this_week" },
    { date_range: "today" },
    { gender: "F", age_group: "35_44" },
    { date_range: "this_year", gender: "M" },
    { following: true, gender: "F" },
  ];

  async function compareAll(label: string) {
    for (const filter of FILTERS) {
      for (const viewer of [athletes[0], athletes[7], athletes[25]]) {
        for (
          const paging of [{}, { per_page: 3, page: 2, context_entries: 1 }, {
            context_entries: 15,
            per_page: 1,
          }] as Query[]
        ) {
          const query: Query = { ...filter, ...paging };
          if (query.club_id !== undefined) {
            if (!members.has(viewer.id)) continue;
            query.club_id = club;
          }
          const res = await server.api("GET", `/v3/segments/${segment}/leaderboard`, { token: viewer.token, query });
          const what = `${label} ${JSON.stringify(query)} viewer ${viewer.id}`;
          expect(res.status, what).toBe(200);
          const want = expected(viewer, query, follows, members);
          expect({
            entry_count: res.body.entry_count,
            entries: res.body.entries.map((e: { athlete_id: number; elapsed_time: number; rank: number }) => ({
              athlete_id: e.athlete_id,
              elapsed_time: e.elapsed_time,
              rank: e.rank,
            })),
          }, what).toEqual(want);
        }
      }
    }
  }

  describe(`leaderboard read model (${store})`, () => {
    it("matches the rules computed from scratch, for every filter, page and context", async () => {
      expect(efforts.length).toBeGreaterThan(40);
      await compareAll("initial");
    }, 120_000);

    it("follows profile changes, privacy changes, deletions and faster efforts", async () => {
      const [a, b, c, d] = [athletes[3], athletes[8], athletes[21], athletes[0]];
      await server.platform.store.append(athleteStream(a.id), "any", [
        athleteProfileUpdated.create({ athleteId: a.id, sex: "M", weight: 71 }),
      ]);
      a.sex = "M";
      a.weight = 71;
      await server.platform.store.append(athleteStream(b.id), "any", [
        athleteProfileUpdated.create({ athleteId: b.id, birthdate: "1988-03-03" }),
      ]);
      b.birthdate = "1988-03-03";
      // Efforts here are recorded straight as events (no activity row), so privacy and deletion are too.
      const change = async (e: Effort, visibility: Visibility) => {
        await server.platform.store.append(activityStream(e.activityId), "any", [
          activityUpdated.create({ activityId: e.activityId, athleteId: e.athleteId, visibility }),
        ]);
        e.visibility = visibility;
      };
      const hide = efforts.find((e) => e.athleteId === c.id && e.visibility === "everyone")!;
      await change(hide, "only_me");
      const shown = efforts.find((e) => e.visibility === "only_me" && e !== hide);
      if (shown) await change(shown, "everyone");
      // Public to followers-only and back, only-me to followers-only, followers-only to only-me.
      const toFollowers = efforts.find((e) => e.athleteId === athletes[2].id && e.visibility === "everyone");
      if (toFollowers) await change(toFollowers, "followers_only");
      const back = efforts.find((e) => e.visibility === "followers_only" && e.athleteId === athletes[6].id);
      if (back) await change(back, "everyone");
      const opened = efforts.find((e) => e.visibility === "only_me" && e.athleteId !== c.id);
      if (opened) await change(opened, "followers_only");
      const closed = efforts.find((e) => e.visibility === "followers_only" && e.athleteId === athletes[4].id);
      if (closed) await change(closed, "only_me");
      await record(d.id, 150, daysAgo(0), "everyone");
      await record(c.id, 150, daysAgo(2), "everyone");
      // A followed athlete's fastest effort is followers-only; a stranger's too.
      await record(athletes[10].id, 140, daysAgo(1), "followers_only");
      await record(athletes[13].id, 141, daysAgo(1), "followers_only");
      await record(athletes[7].id, 142, daysAgo(0), "followers_only");
      // Following now shows the followed athlete's followers-only efforts; unfollowing hides them.
      await follow(athletes[7], athletes[13]);
      await followCommands[1].run(server.platform, { athlete: String(viewer0().id), target: String(athletes[3].id) }, {
        progress() {},
        interactive: false,
      });
      follows.get(viewer0().id)?.delete(athletes[3].id);
      const gone = efforts.find((e) => e.athleteId === athletes[30].id)!;
      await server.platform.store.append(activityStream(gone.activityId), "any", [
        activityDeleted.create({ activityId: gone.activityId, athleteId: athletes[30].id, uploadId: null }),
      ]);
      efforts.splice(efforts.indexOf(gone), 1);
      await compareAll("after changes");
      const seg = await server.api("GET", `/v3/segments/${segment}`, { token: d.token });
      const publicEfforts = efforts.filter((e) => e.visibility === "everyone");
      expect(seg.body.effort_count).toBe(publicEfforts.length);
      expect(seg.body.athlete_count).toBe(new Set(publicEfforts.map((e) => e.athleteId)).size);
    }, 120_000);

    it("rebuilds every read model identically after leaderboard traffic (cli verify)", async () => {
      const { differences } = await server.platform.projections.verify();
      expect(differences).toEqual([]);
    }, 120_000);
  });
}
