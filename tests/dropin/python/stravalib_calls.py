"""stravalib 2.5.0's own calls, one step per run, for tests/dropin/stravalib-real.shared.test.ts.

    STRAVA_HERE=http://127.0.0.1:PORT python strava_here.py stravalib_calls.py STEP '{"token": ..., ...}'

Each step makes the calls a stravalib user makes (Client methods; for the two the client has no
method for, its protocol's own get/post/put) and prints what they returned as JSON: the fields of
stravalib's parsed models, so whatever stravalib refused to parse fails the step (exit 1 with the
error on stderr). Nothing here builds a URL or a request: stravalib does.
"""
import json
import sys
from datetime import datetime, timezone

from stravalib import Client
from stravalib.exc import Fault


def plain(value):
    """A stravalib model value as JSON: quantities as their number, dates as ISO text, models as dicts."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "magnitude"):
        return float(value.magnitude)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "root"):
        return plain(value.root)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "model_fields"):
        return {k: plain(getattr(value, k, None)) for k in type(value).model_fields}
    return str(value)


def pick(model, *fields):
    return {f: plain(getattr(model, f, None)) for f in fields}


def client(args, token_key="token"):
    return Client(access_token=args[token_key])


def epoch(seconds):
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def step(name, args):
    c = client(args) if "token" in args else Client()
    if name == "upload":
        with open(args["file"], "rb") as f:
            uploader = c.upload_activity(f, **args["params"])
        activity = uploader.wait(timeout=120, poll_interval=0.2)
        read = c.get_activity(activity.id, include_all_efforts=False)
        return pick(read, "id", "name", "description", "type", "sport_type", "private", "trainer", "commute",
                    "external_id", "device_name", "start_date", "distance")
    if name == "upload_without_data_type":
        with open(args["file"], "rb") as f:
            try:
                c.protocol.post("/uploads", files={"file": f}, name="No type")
            except Fault as fault:
                return {"refused": True, "message": str(fault)}
        return {"refused": False}
    if name == "create_activity":
        params = dict(args["params"])
        params["start_date_local"] = datetime.fromisoformat(params["start_date_local"].replace("Z", "+00:00"))
        created = c.create_activity(**params)
        return pick(created, "id", "name", "description", "type", "sport_type", "elapsed_time", "distance",
                    "trainer", "commute", "start_date_local")
    if name == "get_activities":
        listed = c.get_activities(before=epoch(args["before"]), after=epoch(args["after"]))
        return [pick(a, "id", "name", "type", "sport_type", "start_date") for a in listed]
    if name == "update_athlete":
        updated = c.update_athlete(weight=args["weight"])
        return {"returned": plain(updated.weight), "read": plain(c.get_athlete().weight)}
    if name == "get_athlete":
        athlete = c.get_athlete()
        return {
            **pick(athlete, "id", "firstname", "lastname", "city", "weight", "sex"),
            "clubs": [pick(club, "id", "name", "sport_type", "activity_types", "city", "cover_photo") for club in
                      athlete.clubs or []],
            "bikes": [pick(b, "id", "name", "distance") for b in athlete.bikes or []],
        }
    if name == "get_athlete_clubs":
        return [pick(club, "id", "name", "activity_types", "city", "state", "country", "cover_photo",
                     "cover_photo_small", "url") for club in c.get_athlete_clubs()]
    if name == "get_club":
        return pick(c.get_club(args["club_id"]), "id", "name", "description", "club_type", "member_count",
                    "cover_photo", "membership", "admin", "owner")
    if name == "get_segment":
        segment = c.get_segment(args["segment_id"])
        stats = segment.athlete_segment_stats
        pr = segment.athlete_pr_effort
        return {
            **pick(segment, "id", "name", "activity_type", "city", "effort_count", "starred"),
            "athlete_segment_stats": pick(stats, "pr_date", "effort_count", "pr_elapsed_time") if stats else None,
            "athlete_pr_effort": pick(pr, "start_date_local", "elapsed_time") if pr else None,
        }
    if name == "star_segment":
        starred = c.protocol.put("/segments/{id}/starred", id=args["segment_id"], starred=True)
        return {"starred": starred.get("starred")}
    if name == "deauthorize":
        c.deauthorize()
        try:
            c.get_athlete()
            return {"after": "answered"}
        except Exception as error:
            return {"after": type(error).__name__, "message": str(error)}
    if name == "exchange_code":
        info, athlete = c.exchange_code_for_token(args["client_id"], args["client_secret"], args["code"],
                                                  return_athlete=True)
        return {**{k: info[k] for k in ("access_token", "refresh_token", "expires_at")},
                "athlete": pick(athlete, "id", "firstname", "city") if athlete else None}
    if name == "refresh":
        info = c.refresh_access_token(args["client_id"], args["client_secret"], args["refresh_token"])
        fresh = Client(access_token=info["access_token"])
        return {**{k: info[k] for k in ("access_token", "refresh_token", "expires_at")},
                "athlete_id": fresh.get_athlete().id}
    raise SystemExit(f"unknown step {name}")


if __name__ == "__main__":
    print(json.dumps(step(sys.argv[1], json.loads(sys.argv[2]))))
