/**
 * A small client of our API written against the types `openapi-typescript` generates from the live
 * /v3/openapi.json (./api.d.ts, written beside this file at test time) and `openapi-fetch`. The test
 * compiles it with `tsc --strict --noEmit`, then runs it: athlete, upload a FIT, poll the upload,
 * activity, streams, stats. The type checks below fail to compile if a response is typed `never` or
 * `unknown` (what a document without response schemas gives).
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./api.d.ts";

type Schemas = components["schemas"];
/** `true` only for a real type: `never` and `unknown` give a string that `true` is not assignable to. */
type Real<T> = [T] extends [never] ? "is never" : unknown extends T ? "is unknown" : true;

export interface RoundTrip {
  athlete: Schemas["DetailedAthlete"];
  upload: Schemas["Upload"];
  polls: number;
  ready: Schemas["Upload"];
  activity: Schemas["DetailedActivity"];
  heartrate: number[];
  latlng: [number, number][];
  stats: Schemas["ActivityStats"];
}

export async function roundTrip(
  baseUrl: string,
  token: string,
  fit: { bytes: Uint8Array; name: string },
): Promise<RoundTrip> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  const me = await client.GET("/v3/athlete");
  if (!me.data) throw new Error(`athlete: ${me.response.status} ${JSON.stringify(me.error)}`);
  const realAthlete: Real<typeof me.data> = true;
  const athlete: Schemas["DetailedAthlete"] = me.data;
  const firstname: string = athlete.firstname;

  const sent = await client.POST("/v3/uploads", {
    body: { file: new Blob([fit.bytes as Uint8Array<ArrayBuffer>]), data_type: "fit", name: "Generated client ride" },
    bodySerializer(body) {
      const form = new FormData();
      for (const [key, value] of Object.entries(body ?? {})) {
        if (value instanceof Blob) form.set(key, value, fit.name);
        else if (value !== undefined) form.set(key, String(value));
      }
      return form;
    },
  });
  if (!sent.data) throw new Error(`upload: ${sent.response.status} ${JSON.stringify(sent.error)}`);
  const realUpload: Real<typeof sent.data> = true;
  const upload: Schemas["Upload"] = sent.data;

  let polls = 0;
  let ready: Schemas["Upload"] = upload;
  while (ready.activity_id === null && ready.error === null) {
    if (++polls > 600) throw new Error("upload did not finish");
    await new Promise((r) => setTimeout(r, 200));
    const status = await client.GET("/v3/uploads/{id}", { params: { path: { id: upload.id } } });
    if (!status.data) throw new Error(`poll: ${status.response.status}`);
    ready = status.data;
  }
  if (ready.activity_id === null) throw new Error(`upload failed: ${ready.error}`);
  const activityId: number = ready.activity_id;

  const got = await client.GET("/v3/activities/{id}", { params: { path: { id: activityId } } });
  if (!got.data) throw new Error(`activity: ${got.response.status}`);
  const realActivity: Real<typeof got.data> = true;
  const detailed = (a: typeof got.data): a is Schemas["DetailedActivity"] => a.resource_state !== -1;
  if (!detailed(got.data)) throw new Error("activity still processing");
  const activity: Schemas["DetailedActivity"] = got.data;
  const distance: number = activity.distance;
  const laps: Schemas["Lap"][] = activity.laps;

  const streams = await client.GET("/v3/activities/{id}/streams", {
    params: { path: { id: activityId }, query: { keys: "latlng,heartrate", key_by_type: true } },
  });
  if (!streams.data) throw new Error(`streams: ${streams.response.status}`);
  const realStreams: Real<typeof streams.data> = true;
  if (Array.isArray(streams.data)) throw new Error("key_by_type=true answers an object");
  const heartrate = (streams.data.heartrate?.data ?? []).filter((v): v is number => typeof v === "number");
  const latlng = (streams.data.latlng?.data ?? []).filter((v): v is [number, number] => Array.isArray(v));

  const totals = await client.GET("/v3/athletes/{id}/stats", { params: { path: { id: athlete.id } } });
  if (!totals.data) throw new Error(`stats: ${totals.response.status}`);
  const realStats: Real<typeof totals.data> = true;
  const stats: Schemas["ActivityStats"] = totals.data;
  const rides: number = stats.all_ride_totals.count;

  void [realAthlete, realUpload, realActivity, realStreams, realStats, firstname, distance, laps, rides];
  return { athlete, upload, polls, ready, activity, heartrate, latlng, stats };
}
