import { rmSync } from "node:fs";
import { z } from "zod";
import { inboxPath } from "../archive/inbox.ts";
import { ReceiveError, receiveArchive } from "../archive/receive.ts";
import { findImportRun, importStatusBody, startImportRun } from "../archive/runs.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { defineRoute } from "../http/route.ts";
import { zImportRun } from "../http/responses/index.ts";

/** Extension (not in Strava's API): importing a Strava or Garmin Connect export archive. */
export const importRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/athlete/imports",
    response: zImportRun,
    summary: "Import a Strava or Garmin Connect export archive (extension). 202 with the import's status; poll GET /v3/athlete/imports/:id.",
    description: "multipart/form-data with the archive in `file`, or the raw archive with Content-Type application/zip. " +
      "Send the token in the Authorization header (the body is streamed to disk, not parsed). Bodies are bounded by MAX_BODY_BYTES; " +
      "larger archives: `npm run cli -- import-archive`. Every recording goes through the upload pipeline; see docs/archive-import.md.",
    tag: "Uploads",
    auth: "token",
    permission: "write",
    resource: "Import",
    status: 202,
    async handler({ c, platform, auth }) {
      const path = inboxPath(platform);
      let received;
      try {
        received = await receiveArchive(c.req.raw.body, c.req.header("content-type") ?? "", "file", path);
      } catch (error) {
        rmSync(path, { force: true });
        if (error instanceof ReceiveError) throw badRequest("Import", "file", "invalid");
        throw error;
      }
      if (!received.file) {
        rmSync(path, { force: true });
        throw badRequest("Import", "file", "missing");
      }
      const run = startImportRun(platform, { athleteId: auth.athleteId, path, fileName: received.file.name, via: "api" });
      return importStatusBody(run);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athlete/imports/:id",
    response: zImportRun,
    summary: "The status of an archive import (extension): counts, failures, and whether it is running, done or refused.",
    tag: "Uploads",
    auth: "token",
    resource: "Import",
    params: z.object({ id: z.string().regex(/^[0-9a-f]{16}$/) }),
    async handler({ auth, params }) {
      const run = findImportRun(params.id, auth.athleteId);
      if (!run) throw notFound("Import");
      return importStatusBody(run);
    },
  }),
];

