"""Runs a Strava tool, unchanged, against this server instead of https://www.strava.com.

    STRAVA_HERE=http://127.0.0.1:8080 python strava_here.py -m strava_offline sqlite --full ...
    STRAVA_HERE=http://127.0.0.1:8080 python strava_here.py some_script.py args...

Both Python tools write https://www.strava.com/... into their code (stravalib's ApiV3.server,
strava-offline's URLs) and have no host option. What a user would do without touching them: give
every requests Session the tool makes a transport adapter for https://www.strava.com/ that sends
the same request — method, path (/api/v3/..., /oauth/...), query, headers, body — to the server
named by STRAVA_HERE. Nothing of the tool is replaced; the requests go out over real HTTP.

STRAVA_HERE_LOG=path appends one line per request: "METHOD URL" as the tool asked for it (an
access_token in the query written as "access_token=***").
"""
import os
import re
import runpy
import sys

import requests
from requests.adapters import HTTPAdapter

STRAVA = "https://www.strava.com"


class Here(HTTPAdapter):
    """Sends what the tool addresses to www.strava.com to the server at `base`."""

    def __init__(self, base: str, log: str | None):
        super().__init__()
        self.base = base.rstrip("/")
        self.log = log

    def send(self, request, **kwargs):
        if self.log:
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(f"{request.method} {re.sub(r'access_token=[^&]+', 'access_token=***', request.url)}\n")
        request.url = self.base + request.url[len(STRAVA):]
        return super().send(request, **kwargs)


_session_init = requests.Session.__init__


def _init(self, *args, **kwargs):
    _session_init(self, *args, **kwargs)
    self.mount(STRAVA + "/", Here(os.environ["STRAVA_HERE"], os.environ.get("STRAVA_HERE_LOG")))


requests.Session.__init__ = _init

if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "-m":
        module = sys.argv[2]
        sys.argv = [module, *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        script = sys.argv[1]
        sys.argv = sys.argv[1:]
        runpy.run_path(script, run_name="__main__")
