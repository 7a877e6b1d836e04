import fc from "fast-check";
import { expect } from "vitest";
import type { Db } from "../../events/db/types.ts";
import { catalogue } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner, type RebuildReport } from "../../projections/runner.ts";

/**
 * A rebuild with the bulk loaders (projections/bulk.ts) must leave every read model exactly as a
 * rebuild applying each event does. Logs are written straight into the events table (the shapes
 * the deciders append, valid at their current versions — every visibility at creation and changed by
 * edits, reprocessings, crops, splits (the part recorded, split from, edited, matched) and their
 * undoing (the part deleted), deletions after all of these, gear added and changed (primary,
 * retired) with edits naming the athlete's own, another's or one not added yet — with the
 * invariants the deciders keep, and, now and then, what they never append:
 * kudos on an activity never created, a comment deleted under another activity, an activity created
 * twice, an effort id matched on two activities, a join of a club before its creation, a gear added
 * twice, a change of another athlete's gear), then
 * rebuilt both ways into two schemas of one database and compared table by table.
 */

interface Written {
  stream: string;
  type: string;
  data: Record<string, unknown>;
  /** Microseconds after the previous event (0: the same recorded time). */
  gap: number;
  /** The schema version `data` is written at (default 1: the event's first shape, upcast on writing). */
  v?: number;
}

const ATHLETES = [1, 2, 3, 4];
/** The kinds of operation buildLog knows (`Op.k`). */
const OPS = 30;
const SEGMENTS = [
  { id: 1, start: [45.76, 4.84], end: [45.77, 4.85], altitudes: [170.2, 181.45, 176.35] },
  { id: 2, start: [45.78, 4.86], end: [45.79, 4.87], altitudes: null },
  { id: 3, start: [45.8, 4.88], end: [45.81, 4.89], altitudes: [200, 199.95] },
];

/** An activity's visibility at its creation: now and then only_me or followers_only. */
const visibilityAt = (n: number) => n % 7 === 0 ? "only_me" : n % 7 === 3 ? "followers_only" : "everyone";
const VISIBILITY_VALUES = ["everyone", "followers_only", "only_me"] as const;

const iso = (day: number, hour = 7) =>
  new Date(Date.UTC(2025, 2, 1 + (day % 20), hour, day % 60, 5)).toISOString().replace(".000Z", "Z");

function recordedFacts(id: number, athlete: number, upload: number, n: number): Record<string, unknown> {
  const run = n % 3 === 0;
  return {
    activityId: id,
    athleteId: athlete,
    uploadId: upload,
    externalId: n % 4 ? `file-${upload}.fit` : null,
    name: `Ride ${n}`,
    type: run ? "Run" : "Ride",
    sportType: run ? "TrailRun" : n % 5 === 0 ? "EBikeRide" : "Ride",
    description: null,
    startDate: iso(n),
    startDateLocal: n % 6 === 0 ? iso(n, 9).replace("Z", "") : iso(n, 9),
    timezone: "(GMT+02:00) Europe/Paris",
    distance: 10_000.3 + n * 17.13,
    movingTime: 1800 + n,
    elapsedTime: 1900 + n,
    totalElevationGain: 120.7 + n / 3,
    visibility: visibilityAt(n),
    trainer: false,
    commute: n % 2 === 0,
    elevHigh: 300.5,
    elevLow: 170,
    startLatlng: [45.76, 4.84],
    endLatlng: [45.81, 4.89],
    averageSpeed: 5.21,
    maxSpeed: 14.4,
    averageCadence: null,
    averageTemp: 18,
    averageWatts: n % 2 ? 210.4 : null,
    maxWatts: n % 2 ? 800 : null,
    weightedAverageWatts: n % 2 ? 221 + (n % 5) : null,
    kilojoules: 900.1,
    deviceWatts: n % 2 === 1,
    hasHeartrate: n % 3 !== 1,
    averageHeartrate: n % 3 !== 1 ? 139.5 + (n % 11) : null,
    maxHeartrate: n % 3 !== 1 ? 181 : null,
    calories: 800,
    sufferScore: null,
    deviceName: n % 2 ? "Garmin Edge 1000" : null,
    workoutType: null,
    polyline: null,
    polylineSha256: `p${n}`,
    summaryPolyline: "_p~iF~ps|U_ulLnnqC",
    streamsSha256: n % 5 === 4 ? null : `s${n}`,
    laps: [{
      lapIndex: 1,
      name: "Lap 1",
      startIndex: 0,
      endIndex: 99,
      startDate: iso(n),
      elapsedTime: 1900 + n,
      movingTime: 1800 + n,
      distance: 10_000.3,
      totalElevationGain: 120.7,
      averageSpeed: 5.21,
      maxSpeed: 14.4,
      averageCadence: null,
      averageWatts: null,
      averageHeartrate: null,
      maxHeartrate: null,
    }],
    splitsMetric: [],
    splitsStandard: [],
    bestEfforts: run
      ? [["1k", 1000, 1, n % 2 ? 1 : null], ["5k", 5000, 5, null], ["10k", 10_000, 10, null]].map(
        ([name, distance, km, prRank]) => ({
          name,
          distance,
          elapsedTime: Number(km) * (240 + (n % 37)),
          movingTime: Number(km) * (238 + (n % 37)),
          startIndex: 0,
          endIndex: Number(km) * 100,
          startDate: iso(n),
          prRank,
        }),
      )
      : [],
    barometric: true,
    // A power curve now and then (a repeated duration and a point of no power among its points), null, or none.
    ...(n % 4 === 1
      ? {
        powerCurve: [{ duration: 5, watts: 400 + (n % 50) }, { duration: 60, watts: 300 + (n % 7) }, {
          duration: 5,
          watts: 999,
        }, { duration: 3600, watts: 0 }],
      }
      : n % 4 === 2
      ? { powerCurve: null }
      : {}),
  };
}

/** The efforts of a matching: on the three segments, some without recorded ends (older events). */
function efforts(first: number, count: number, n: number) {
  return Array.from({ length: count }, (_, k) => {
    const segment = SEGMENTS[(n + k) % SEGMENTS.length];
    const effort: Record<string, unknown> = {
      effortId: String(9_000_000_000_000_000 + first + k),
      segmentId: segment.id,
      name: `Segment ${segment.id}`,
      startIndex: 10 * k,
      endIndex: 10 * k + 9,
      startDate: iso(n),
      startDateLocal: iso(n, 9),
      elapsedTime: 300 + ((n * 7 + k * 13) % 90),
      movingTime: 290,
      distance: 1500.5,
      averageHeartrate: k % 2 ? 150.5 : null,
      maxHeartrate: null,
      averageWatts: 230.25,
      averageCadence: null,
      komRank: k === 0 ? 1 : null,
      prRank: k % 3 === 0 ? 2 : null,
      achievements: k === 0 ? [{ typeId: 2, type: "overall", rank: 1 }, { typeId: 3, type: "pr", rank: 2 }] : [],
      hidden: k % 4 === 3,
    };
    if ((n + k) % 3) {
      effort.startLatlng = segment.start;
      effort.endLatlng = segment.end;
    }
    return effort;
  });
}

/** The measured facts a re-derivation carries (a reprocessing; a crop's with its start). */
function rederivedFacts(id: number, athlete: number, n: number, polylineInline: boolean): Record<string, unknown> {
  const {
    activityId: _a,
    athleteId: _b,
    uploadId: _c,
    externalId: _d,
    name: _e,
    type: _f,
    sportType: _g,
    description: _h,
    startDate: _i,
    startDateLocal: _j,
    timezone: _k,
    visibility: _l,
    trainer: _m,
    commute: _n,
    barometric: _o,
    workoutType: _p,
    ...facts
  } = recordedFacts(id, athlete, 0, n);
  if (polylineInline) Object.assign(facts, { polyline: "abc", polylineSha256: undefined });
  return JSON.parse(JSON.stringify(facts));
}

/** A crop's facts: the re-derived ones over a window, with the window's start. */
function windowFacts(id: number, athlete: number, n: number, polylineInline: boolean): Record<string, unknown> {
  return {
    ...rederivedFacts(id, athlete, n, polylineInline),
    startDate: iso(n, 10),
    startDateLocal: iso(n, 12),
    timezone: n % 2 ? "(GMT+02:00) Europe/Paris" : "(GMT+00:00) Europe/London",
  };
}

const window = (n: number, edit: number) => ({ start: iso(n, 10 + edit), end: iso(n, 11 + edit) });

const op = fc.record({ k: fc.integer({ min: 0, max: OPS - 1 }), a: fc.nat(1000), b: fc.nat(1000), odd: fc.nat(30) });
type Op = { k: number; a: number; b: number; odd: number };

/** What buildLog keeps of an activity it created, to append what the deciders would next. */
interface Activity {
  id: number;
  athlete: number;
  recorded: boolean;
  visibility: (typeof VISIBILITY_VALUES)[number];
  deleted: boolean;
  /** Its crops and splits in effect, the latest last (`before`: the window before it, null: whole). */
  edits: {
    edit: number;
    splitInto: number | null;
    before: { start: string; end: string } | null;
    window: { start: string; end: string };
  }[];
  lastEdit: number;
  /** Its streams blob and elapsed time as they stand (a re-derivation may keep them). */
  streams?: string | null;
  elapsed?: number;
}

/** A log from a list of operations: mostly what the deciders append, with a rare oddity (odd === 0). */
export function buildLog(ops: Op[]): Written[] {
  const log: Written[] = [];
  const put = (stream: string, type: string, data: Record<string, unknown>, gap = 1_000_000, v = 1) =>
    log.push({ stream, type, data, gap, v });
  for (const id of ATHLETES) {
    put(`athlete-${id}`, "AthleteRegistered", {
      athleteId: id,
      firstname: `A${id}`,
      lastname: "Rider",
      email: `a${id}@example.com`,
      passwordHash: "scrypt$1$x",
      sex: id % 2 ? "M" : "F",
      premium: false,
      city: null,
      state: null,
      country: null,
      birthdate: id === 4 ? null : `19${70 + id}-05-0${id}`,
      weight: 60 + id * 7.5,
    }, 123);
  }
  put("application-1", "ApplicationRegistered", {
    applicationId: 1,
    ownerId: 1,
    name: "App",
    website: null,
    description: null,
    callbackDomain: "localhost",
    clientSecretHash: "h",
    internal: true,
    kudosEnabled: true,
    challengesEnabled: true,
  });
  for (const s of SEGMENTS) {
    put(`segment-${s.id}`, "SegmentCreated", {
      segmentId: s.id,
      athleteId: 1,
      activityId: null,
      name: `Segment ${s.id}`,
      activityType: "Ride",
      points: [s.start, [(s.start[0] + s.end[0]) / 2, (s.start[1] + s.end[1]) / 2], s.end],
      altitudes: s.altitudes,
      distance: 1500.5,
      averageGrade: 2.5,
      maximumGrade: 7.25,
      elevationHigh: s.altitudes ? 200 : null,
      elevationLow: s.altitudes ? 170.2 : null,
      totalElevationGain: 30,
      climbCategory: 0,
      startLatlng: s.start,
      endLatlng: s.end,
      polyline: "_p~iF~ps|U",
      city: "Lyon",
      state: null,
      country: "France",
      private: false,
      hazardous: false,
    });
  }
  put("club-1", "ClubCreated", {
    clubId: 1,
    ownerId: 1,
    name: "One",
    description: null,
    clubType: "casual_club",
    sportType: "cycling",
    city: null,
    state: null,
    country: null,
    private: false,
    verified: false,
    url: "one",
  });
  for (
    const [id, type, dimension, segmentId] of [[1, "CumulativeChallenge", "distance", null], [
      2,
      "SegmentChallenge",
      "time",
      1,
    ], [3, "SingleActivityChallenge", "pace", null]] as const
  ) {
    put(`challenge-${id}`, "ChallengeCreated", {
      challengeId: id,
      name: `Challenge ${id}`,
      type,
      dimension,
      goal: 5000,
      startDate: "2025-03-01",
      endDate: "2025-03-15",
      activityType: id === 3 ? "Run" : null,
      segmentId,
      externalUrl: null,
      description: "d",
      mobileDescription: "m",
      additionalInfo: "",
      rules: "",
      prizes: "",
      teaser: "",
      url: `c${id}`,
      logoUrl: "",
      color: "#fff",
      socialHashtag: "",
    });
  }
  const created: Activity[] = [];
  const comments: { id: number; activity: number }[] = [];
  let nextActivity = 100, nextUpload = 1, nextComment = 1, nextEffort = 1, nextZone = 1, nextPhoto = 1;
  const zones: { id: number; athlete: number }[] = [];
  const goals: { id: number; athlete: number }[] = [];
  let nextGoal = 1;
  const gear: { id: string; athlete: number; kind: "bike" | "shoe"; retired: boolean }[] = [];
  let nextGear = 1;
  /** A gear an edit names: the athlete's own, b1 (another's, or not added yet), the next to be added. */
  const gearFor = (athlete: number, n: number) =>
    n % 4 === 0 ? "b1" : n % 4 === 1 ? `b${nextGear}` : pick(gear.filter((g) => g.athlete === athlete), n)?.id ?? "b1";
  const pick = <T>(list: T[], n: number): T | undefined => list.length ? list[n % list.length] : undefined;
  /** A re-derivation's facts, with the activity's streams (`streams` 0) and elapsed time (`end` 0) kept. */
  const keeping = (activity: Activity, facts: Record<string, unknown>, streams: number, end: number) => {
    if (streams === 0 && activity.streams !== undefined) facts.streamsSha256 = activity.streams;
    if (end === 0 && activity.elapsed !== undefined) facts.elapsedTime = activity.elapsed;
    activity.streams = facts.streamsSha256 as string | null;
    activity.elapsed = facts.elapsedTime as number;
    return facts;
  };
  /** New efforts of an activity (a rematching after a crop, a split's part matched). */
  const rematch = (activity: Activity, count: number, n: number, type = "SegmentEffortsRematched") => {
    put(
      `activity-${activity.id}`,
      type,
      {
        activityId: activity.id,
        athleteId: activity.athlete,
        activityType: "Ride",
        visibility: activity.visibility,
        efforts: efforts(nextEffort, count, n),
        prCount: 0,
        achievementCount: count,
      },
      1_000_000,
      2,
    );
    nextEffort += count;
  };
  ops.forEach(({ k, a, b, odd }, n) => {
    const athlete = ATHLETES[a % ATHLETES.length];
    const activity = pick(created, b);
    const gap = a % 9 === 0 ? 0 : 1000 + (b * 7919) % 999_999;
    switch (k) {
      case 0:
      case 1: {
        // An upload: received, recorded, matched (usually), succeeded or failed.
        const id = nextActivity++, upload = nextUpload++;
        put(`upload-${upload}`, "UploadReceived", {
          uploadId: upload,
          athleteId: athlete,
          activityId: id,
          fileName: `f${upload}.fit`,
          dataType: "fit",
          originalSha256: `o${upload}`,
          contentSha256: `c${upload % 5}`,
          externalId: `e${upload}`,
          activityType: null,
          name: null,
          description: null,
          private: false,
          trainer: false,
          commute: false,
        }, gap);
        if (b % 6 === 5) {
          put(`upload-${upload}`, "UploadFailed", {
            uploadId: upload,
            athleteId: athlete,
            error: "bad",
            duplicateOf: null,
          });
          break;
        }
        const recording = recordedFacts(id, athlete, upload, n);
        put(`activity-${id}`, "ActivityRecorded", recording, gap, 2);
        created.push({
          streams: recording.streamsSha256 as string | null,
          elapsed: recording.elapsedTime as number,
          id,
          athlete,
          recorded: true,
          visibility: visibilityAt(n),
          deleted: false,
          edits: [],
          lastEdit: 0,
        });
        if (b % 5) {
          const count = 1 + (b % 4);
          const list = efforts(odd === 0 && nextEffort > 3 ? nextEffort - 2 : nextEffort, count, n);
          nextEffort += count;
          put(
            `activity-${id}`,
            "SegmentEffortsMatched",
            {
              activityId: id,
              athleteId: athlete,
              activityType: "Ride",
              visibility: visibilityAt(n),
              efforts: list,
              prCount: count,
              achievementCount: count + 1,
            },
            1_000_000,
            2,
          );
        }
        put(`upload-${upload}`, "UploadSucceeded", {
          uploadId: upload,
          athleteId: athlete,
          activityId: id,
          startDate: iso(n),
          deviceName: a % 2 ? "Garmin" : null,
          contentSha256: `c${upload % 5}`,
          notes: b % 3 ? [] : ["note"],
        });
        return;
      }
      case 2: {
        const id = odd === 0 && activity ? activity.id : nextActivity++;
        put(
          `activity-${id}`,
          "ActivityCreated",
          {
            activityId: id,
            athleteId: athlete,
            name: `Manual ${n}`,
            type: b % 2 ? "Run" : "Ride",
            ...(b % 3 ? { sportType: b % 2 ? "Run" : "GravelRide" } : {}),
            startDate: iso(n, 6),
            startDateLocal: iso(n, 8),
            timezone: "(GMT+02:00) Europe/Paris",
            elapsedTime: b % 11 === 0 ? 0 : 1200 + b,
            distance: 3000 + b * 1.1,
            description: b % 4 ? null : "m",
            visibility: VISIBILITY_VALUES[b % 5 === 0 ? 2 : b % 5 === 2 ? 1 : 0],
            trainer: b % 6 === 0,
            commute: false,
          },
          gap,
          2,
        );
        created.push({
          id,
          athlete,
          recorded: false,
          visibility: VISIBILITY_VALUES[b % 5 === 0 ? 2 : b % 5 === 2 ? 1 : 0],
          deleted: false,
          edits: [],
          lastEdit: 0,
        });
        return;
      }
      case 3:
      case 4: {
        const id = odd === 0 ? 99 : activity?.id;
        if (id) put(`activity-${id}`, "KudosGiven", { activityId: id, athleteId: athlete }, gap);
        return;
      }
      case 5: {
        if (!activity) return;
        const id = nextComment++;
        comments.push({ id, activity: activity.id });
        put(`activity-${activity.id}`, "CommentAdded", {
          commentId: id,
          activityId: activity.id,
          athleteId: athlete,
          text: `c${n}`,
        });
        return;
      }
      case 6: {
        const comment = pick(comments, b);
        if (!comment) return;
        const on = odd === 0 ? (pick(created, a)?.id ?? comment.activity) : comment.activity;
        put(`activity-${on}`, "CommentDeleted", { commentId: comment.id, activityId: on, deletedBy: athlete });
        return;
      }
      case 7:
      case 8: {
        if (!activity) return;
        const data: Record<string, unknown> = { activityId: activity.id, athleteId: activity.athlete };
        if (b & 1) data.name = a % 3 ? `Edited ${n}` : `Édité à İstanbul ${n}`;
        if (b & 2) Object.assign(data, { type: "Run", sportType: "Run" });
        // Now and then the visibility it already has (an edit that changes nothing of it).
        if (b & 4) {
          data.visibility = activity.visibility = a % 7 ? VISIBILITY_VALUES[(b >> 3) % 3] : activity.visibility;
        }
        if (b & 16) Object.assign(data, { commute: true, trainer: (b & 32) === 0 });
        if (b & 64) {
          Object.assign(data, {
            gearId: b & 128 ? null : gearFor(activity.athlete, a),
            description: b & 256 ? null : `d${n}`,
          });
        }
        if (b & 512) data.hideFromHome = (b & 8) === 0;
        if (a % 5 === 0) data.sportType = "MountainBikeRide";
        put(`activity-${activity.id}`, "ActivityUpdated", data, gap, 2);
        return;
      }
      case 9: {
        if (!activity || b % 3) return;
        put(`activity-${activity.id}`, "ActivityDeleted", {
          activityId: activity.id,
          athleteId: activity.athlete,
          uploadId: null,
        });
        activity.deleted = true;
        return;
      }
      case 10: {
        if (!activity?.recorded) return;
        put(`activity-${activity.id}`, "ActivityReprocessed", {
          activityId: activity.id,
          athleteId: activity.athlete,
          // Now and then the same streams (a cli reprocess that changed no stream), or the same end too.
          facts: keeping(activity, rederivedFacts(activity.id, activity.athlete, n + 3, b % 2 === 1), a % 4, a % 8),
        });
        return;
      }
      case 11: {
        if (!activity?.recorded) return;
        const count = b % 3;
        put(
          `activity-${activity.id}`,
          "SegmentEffortsRematched",
          {
            activityId: activity.id,
            athleteId: activity.athlete,
            activityType: "Ride",
            visibility: activity.visibility,
            efforts: efforts(nextEffort, count, n),
            prCount: 0,
            achievementCount: count,
          },
          1_000_000,
          2,
        );
        nextEffort += count;
        return;
      }
      case 12: {
        if (!activity) return;
        if (b % 2) {
          put(`activity-${activity.id}`, "PhotoAdded", {
            activityId: activity.id,
            athleteId: activity.athlete,
            uniqueId: `u${nextPhoto++}`,
            caption: "",
            createdAt: iso(n),
            location: null,
            renditions: [{ size: 100, width: 10, height: 10, sha256: "x", contentType: "image/jpeg" }],
          });
        } else {
          put(`activity-${activity.id}`, "PhotoLinked", {
            photoId: nextPhoto++,
            activityId: activity.id,
            athleteId: activity.athlete,
            ref: "r",
            uid: "u",
            caption: "",
            url: "https://example.com/p.jpg",
            uploadedAt: iso(n),
            location: [45, 4],
          });
        }
        return;
      }
      case 13:
      case 14: {
        const other = ATHLETES[b % ATHLETES.length];
        put(`follows-${athlete}`, b % 3 ? "AthleteFollowed" : "AthleteUnfollowed", {
          athleteId: athlete,
          targetId: other,
        }, gap);
        return;
      }
      case 15: {
        const segment = SEGMENTS[b % SEGMENTS.length].id;
        put(`segment-star-${athlete}-${segment}`, b % 4 ? "SegmentStarred" : "SegmentUnstarred", {
          athleteId: athlete,
          segmentId: segment,
        }, gap);
        return;
      }
      case 16:
      case 17: {
        const club = odd === 0 ? 2 : 1;
        const types = [
          "ClubJoined",
          "ClubLeft",
          "ClubMembershipRequested",
          "ClubMembershipApproved",
          "ClubMembershipDeclined",
          "ClubMemberInvited",
          "ClubAdminPromoted",
          "ClubAdminDemoted",
          "AthleteEnhancedPrivacyChanged",
        ];
        const type = types[b % types.length];
        const extra: Record<string, unknown> = {
          ClubMembershipApproved: { approvedBy: 1 },
          ClubMembershipDeclined: { declinedBy: 1 },
          ClubMemberInvited: { invitedBy: 1 },
          ClubAdminPromoted: { promotedBy: 1 },
          ClubAdminDemoted: { demotedBy: 1 },
        }[type] ?? {};
        if (type === "AthleteEnhancedPrivacyChanged") {
          put(`athlete-settings-${athlete}`, type, { athleteId: athlete, enhancedPrivacy: (a & 1) === 0 });
        } else put(`club-${club}`, type, { clubId: club, athleteId: athlete, ...extra }, gap);
        return;
      }
      case 18: {
        const challenge = 1 + (b % 3);
        put(`challenge-${challenge}`, b % 4 ? "ChallengeJoined" : "ChallengeLeft", {
          challengeId: challenge,
          athleteId: athlete,
        });
        return;
      }
      case 19: {
        const zone = pick(zones.filter((z) => z.athlete === athlete), b);
        if (zone && b % 3 === 0) {
          zones.splice(zones.indexOf(zone), 1);
          put(`privacy-zones-${athlete}`, "PrivacyZoneDeleted", { zoneId: zone.id, athleteId: athlete });
        } else {
          const at = SEGMENTS[b % SEGMENTS.length][b % 2 ? "start" : "end"];
          const id = nextZone++;
          zones.push({ id, athlete });
          put(`privacy-zones-${athlete}`, "PrivacyZoneCreated", {
            zoneId: id,
            athleteId: athlete,
            lat: at[0] + (a % 3) * 0.0003,
            lng: at[1],
            radiusM: 50 + (a % 4) * 30,
          });
        }
        return;
      }
      case 20: {
        const data: Record<string, unknown> = { athleteId: athlete };
        if (b & 1) data.ftp = b & 2 ? null : 180 + (b % 90);
        if (b & 4) data.sex = b & 8 ? null : "F";
        if (b & 16) data.birthdate = b & 32 ? null : "1988-02-03";
        if (b & 64) data.weight = 71.5;
        if (b & 128) data.firstname = `F${n}`;
        put(`athlete-${athlete}`, "AthleteProfileUpdated", data);
        return;
      }
      case 21: {
        const segment = SEGMENTS[b % SEGMENTS.length].id;
        put(`segment-${segment}`, "SegmentProfileMeasured", {
          segmentId: segment,
          activityId: 100,
          effortId: "9000000000000001",
          source: b % 2 ? "gps" : "barometric",
          profile: [[0, 170.2 + (b % 5)], [750, 180], [1500.5, 185.05 - (b % 7) * 3]],
          averageGrade: 1.1,
          maximumGrade: 3.3,
          elevationHigh: 185,
          elevationLow: 170,
          totalElevationGain: 15.5,
          climbCategory: 0,
        });
        return;
      }
      case 22: {
        put(`authorization-${athlete}-1`, "AccessTokenIssued", {
          tokenHash: `t${n}`,
          athleteId: athlete,
          applicationId: 1,
          scopes: ["read"],
          kind: "access",
          expiresAt: null,
          grantId: null,
        });
        return;
      }
      case 23: {
        if (odd % 10 === 0 && athlete === 4) put(`athlete-${athlete}`, "AthleteErased", { athleteId: athlete });
        return;
      }
      case 24:
      case 25:
      case 26: {
        // A crop (24, 25) or a split (26) of an uploaded activity, as server/crop/edits.ts appends them.
        const target = pick(created.filter((c) => c.recorded && !c.deleted), b);
        if (!target) return;
        const edit = ++target.lastEdit;
        const kept = window(n, edit);
        const splitInto = k === 26 ? nextActivity++ : null;
        put(`activity-${target.id}`, "ActivityCropped", {
          activityId: target.id,
          athleteId: target.athlete,
          edit,
          window: kept,
          splitInto,
          facts: keeping(target, windowFacts(target.id, target.athlete, n + 5, b % 2 === 1), a % 4, 1),
        }, gap);
        target.edits.push({ edit, splitInto, before: target.edits.at(-1)?.window ?? null, window: kept });
        if (b % 3) rematch(target, b % 3, n);
        if (splitInto === null) return;
        const part: Record<string, unknown> = {
          ...recordedFacts(splitInto, target.athlete, 0, n + 1),
          externalId: null,
        };
        put(`activity-${splitInto}`, "ActivityRecorded", { ...part, visibility: target.visibility }, gap, 2);
        put(`activity-${splitInto}`, "ActivitySplitFrom", {
          activityId: splitInto,
          athleteId: target.athlete,
          fromActivityId: target.id,
          window: window(n, edit + 1),
        });
        if (a % 3) {
          put(
            `activity-${splitInto}`,
            "ActivityUpdated",
            {
              activityId: splitInto,
              athleteId: target.athlete,
              ...(a % 3 === 1 ? { gearId: gearFor(target.athlete, b) } : { hideFromHome: true }),
            },
            1_000_000,
            2,
          );
        }
        const piece: Activity = {
          streams: part.streamsSha256 as string | null,
          elapsed: part.elapsedTime as number,
          id: splitInto,
          athlete: target.athlete,
          recorded: true,
          visibility: target.visibility,
          deleted: false,
          edits: [],
          lastEdit: 0,
        };
        created.push(piece);
        if (a % 4) rematch(piece, 1 + (a % 3), n, "SegmentEffortsMatched");
        return;
      }
      case 28: {
        // An athlete's goals: set, and now and then one of them deleted.
        const goal = pick(goals.filter((g) => g.athlete === athlete), b);
        if (goal && b % 3 === 0) {
          goals.splice(goals.indexOf(goal), 1);
          put(`goals-${athlete}`, "GoalDeleted", { goalId: goal.id, athleteId: athlete });
        } else {
          const id = nextGoal++;
          goals.push({ id, athlete });
          put(`goals-${athlete}`, "GoalSet", {
            goalId: id,
            athleteId: athlete,
            type: b % 2 ? "Run" : "Ride",
            period: (["week", "month", "year"] as const)[a % 3],
            dimension: (["distance", "time", "elevation"] as const)[b % 3],
            goal: 1000 + a * 10.5,
          });
        }
        return;
      }
      case 29: {
        // An athlete's gear: added (now and then primary), or one of theirs changed (primary, retired…).
        const own = gear.filter((g) => g.athlete === athlete);
        const piece = pick(own, b);
        if (!piece || b % 3 === 0) {
          const kind = (b >> 1) % 2 ? "shoe" : "bike";
          const again = odd === 0 ? pick(gear, a) : undefined;
          const id = again?.id ?? `${kind === "bike" ? "b" : "g"}${nextGear++}`;
          if (!again) gear.push({ id, athlete, kind, retired: false });
          put(`gear-${athlete}`, "GearAdded", {
            gearId: id,
            athleteId: athlete,
            kind,
            name: `Gear ${id}`,
            nickname: a % 3 ? null : `nick ${n}`,
            brandName: a % 2 ? "Brand" : null,
            modelName: a % 5 ? null : "Model",
            description: null,
            frameType: kind === "bike" && a % 2 ? 1 + (a % 4) : null,
            weight: kind === "bike" && a % 3 ? 8.25 + (a % 7) : null,
            primary: b % 2 === 0,
          }, gap);
          return;
        }
        // Now and then (odd) a change of another athlete's gear (the decider refuses it).
        const by = odd === 0 ? ATHLETES[(ATHLETES.indexOf(athlete) + 1) % ATHLETES.length] : athlete;
        const data: Record<string, unknown> = { gearId: piece.id, athleteId: by };
        if (a & 1) data.name = `Renamed ${n}`;
        if (a & 2) data.nickname = a & 4 ? null : `n${n}`;
        if (a & 8) Object.assign(data, { brandName: `B${n}`, modelName: a & 16 ? null : `M${n}` });
        if (a & 32) data.description = a & 64 ? null : `about ${n}`;
        if (a & 128) data.reminderDistance = a & 256 ? null : 1000 * (1 + (a % 50)) + 0.5;
        if (b & 4) {
          // Retiring takes primary away (as the decider records it); retired gear is never made primary.
          piece.retired = !piece.retired;
          data.retired = piece.retired;
          if (piece.retired) data.primary = false;
        } else if (!piece.retired && b & 8) data.primary = (b & 16) === 0;
        if (Object.keys(data).length === 2) data.name = `Renamed ${n}`;
        put(`gear-${by}`, "GearUpdated", data, gap);
        return;
      }
      case 27: {
        // The undoing of an activity's latest crop or split (the split's other part deleted first).
        const target = pick(created.filter((c) => c.edits.length && !c.deleted), b);
        if (!target) return;
        const last = target.edits[target.edits.length - 1];
        const part = last.splitInto === null ? undefined : created.find((c) => c.id === last.splitInto);
        if (part && part.edits.length) return;
        if (part && !part.deleted) {
          put(`activity-${part.id}`, "ActivityDeleted", {
            activityId: part.id,
            athleteId: part.athlete,
            uploadId: null,
          });
          part.deleted = true;
        }
        target.edits.pop();
        put(`activity-${target.id}`, "ActivityCropUndone", {
          activityId: target.id,
          athleteId: target.athlete,
          edit: last.edit,
          window: last.before,
          splitInto: last.splitInto,
          facts: keeping(
            target,
            windowFacts(target.id, target.athlete, n + 7 * target.edits.length, b % 2 === 1),
            1,
            1,
          ),
        }, gap);
        if (b % 2) rematch(target, b % 4, n);
        return;
      }
    }
  });
  return log;
}

/**
 * Writes a log into the (empty) events table, one version per event of each stream. The log is
 * written in the events' first shapes; each is stored upcast to its current version, as the
 * deciders append it now (a loader is only used when its events are at the current version).
 */
export async function writeLog(db: Db, log: Written[]): Promise<void> {
  const versions = new Map<string, number>();
  let at = Date.UTC(2025, 0, 1) * 1000;
  const rows = log.map((e) => {
    const version = (versions.get(e.stream) ?? 0) + 1;
    versions.set(e.stream, version);
    at += e.gap;
    const ms = Math.floor(at / 1000);
    const micros = String(at % 1000).padStart(3, "0");
    const definition = catalogue.definition(e.type);
    const data = catalogue.upcast(e.type, e.v ?? 1, e.data);
    // Every event as the deciders append it: valid at its current version.
    const parsed = definition?.schema.safeParse(data);
    if (!parsed?.success) {
      throw new Error(`${e.type} on ${e.stream} invalid: ${parsed?.error.message ?? "unknown type"}`);
    }
    return {
      stream: e.stream,
      version,
      type: e.type,
      schemaVersion: definition!.version,
      data,
      at: `${new Date(ms).toISOString().slice(0, 23)}${micros}Z`,
    };
  });
  await db.query(
    `insert into public.events (stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
     select t.e->>'stream', (t.e->>'version')::int, t.e->>'type', (t.e->>'schemaVersion')::int, t.e->'data', '{}'::jsonb, (t.e->>'at')::timestamptz
       from jsonb_array_elements($1::jsonb) with ordinality as t(e, ord)
      order by t.ord`,
    [JSON.stringify(rows)],
  );
}

/** Empties the log (the erasure's sanctioned delete, for a test's next log). */
async function clearLog(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("select set_config('events.erasure', 'athlete-test', true)");
    await tx.exec("delete from public.events");
  });
}

/** Rebuilds the log both ways and compares; answers the bulk rebuild's report. */
export async function bothWays(db: Db): Promise<RebuildReport> {
  const store = await EventStore.open(db, catalogue);
  const byEvent = new ProjectionRunner(db, store, allProjections, { bulk: false });
  const bulk = new ProjectionRunner(db, store, allProjections);
  await byEvent.rebuild("by_event");
  const report = await bulk.rebuild("in_bulk");
  const { differences } = await bulk.compare("by_event", "in_bulk");
  await db.exec("drop schema by_event cascade; drop schema in_bulk cascade");
  expect(differences).toEqual([]);
  return report;
}

/** Bulk projections a log the deciders could have written loads in bulk (all of them). */
export const BULK_PROJECTIONS = allProjections.filter((p) => p.bulk).map((p) => p.name);

/** The fixed logs and random ones every database runs. */
export async function checkBulkReplay(db: Db, numRuns: number): Promise<void> {
  await EventStore.open(db, catalogue);
  // Every kind of operation, none odd: every loader loads in bulk.
  const fixed = Array.from({ length: 20 * OPS }, (_, n) => ({
    k: n % OPS,
    a: (n * 37 + (n >> 4)) % 1000,
    b: (n * 53 + (n >> 5)) % 1000,
    odd: n === 455 ? 10 : 1,
  }));
  // Last, edits that restate an activity's visibility: they change nothing of what may be shown.
  fixed.push(...Array.from({ length: 12 }, (_, j) => ({ k: 7, a: 7 * (j + 1), b: 4 + 1024 * j, odd: 1 })));
  // Then gear: added, made primary and retired, named by edits (the athlete's own, another's, one
  // not added yet), its activities reprocessed, cropped and deleted: a gear's distance and primary
  // flag follow every move in order.
  fixed.push(
    ...Array.from({ length: 120 }, (_, j) => ({
      k: [7, 29, 10, 29, 8, 29, 24, 9][j % 8],
      a: (j * 131) % 1000,
      b: (j * 277 + 64) % 1000,
      odd: 1,
    })),
  );
  await writeLog(db, buildLog(fixed));
  const report = await bothWays(db);
  expect(report.bulk.sort()).toEqual([...BULK_PROJECTIONS].sort());
  expect(report.eventByEvent).toEqual({});
  await clearLog(db);
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 90 }), async (ops) => {
      await writeLog(db, buildLog(ops));
      try {
        await bothWays(db);
      } finally {
        await clearLog(db);
      }
    }),
    { numRuns },
  );
}
