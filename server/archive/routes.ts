import { rmSync } from "node:fs";
import { z } from "zod";
import { inboxPath } from "./inbox.ts";
import {
  ArchiveTooLarge,
  checkDeclaredSize,
  DEFAULT_MAX_IMPORT_BYTES,
  receiveArchive,
  ReceiveError,
} from "./receive.ts";
import { findImportRun, importStatusBody, startImportRun } from "./runs.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { defineRoute } from "../http/route.ts";
import { zImportRun } from "./schema.ts";

/** Extension (not in Strava's API): importing a Strava or Garmin Connect export archive. */
export const importRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/athlete/imports",
    response: zImportRun,
    summary:
      "Import a Strava or Garmin Connect export archive (extension). 202 with the import's status; poll GET /v3/athlete/imports/:id.",
    description:
      "multipart/form-data with the archive in `file`, or the raw archive with Content-Type application/zip. " +
      "Send the token in the Authorization header (the body is streamed to disk, not parsed). MAX_BODY_BYTES does not apply: archives are " +
      "bounded by MAX_IMPORT_BYTES (32 GiB by default) and the disk space left; 413 Import file `too large` or `insufficient disk space` above. " +
      "Every recording goes through the upload pipeline; see docs/archive-import.md.",
    tag: "Uploads",
    auth: "token",
    permission: "write",
    resource: "Import",
    status: 202,
    async handler({ c, platform, auth }) {
      const path = inboxPath(platform);
      const maxBytes = platform.config.maxImportBytes ?? DEFAULT_MAX_IMPORT_BYTES;
      let received;
      try {
        await checkDeclaredSize(c.req.header("content-length"), maxBytes, path);
        received = await receiveArchive(
          c.req.raw.body,
          c.req.header("content-type") ?? "",
          "file",
          path,
          undefined,
          maxBytes,
        );
      } catch (error) {
        rmSync(path, { force: true });
        if (error instanceof ReceiveError) throw badRequest("Import", "file", "invalid");
        if (error instanceof ArchiveTooLarge) {
          throw new ApiError(413, "Payload Too Large", [{ resource: "Import", field: "file", code: error.code }]);
        }
        throw error;
      }
      if (!received.file) {
        rmSync(path, { force: true });
        throw badRequest("Import", "file", "missing");
      }
      const run = await startImportRun(platform, {
        athleteId: auth.athleteId,
        path,
        fileName: received.file.name,
        bytes: received.file.bytes,
        via: "api",
      });
      return importStatusBody(run);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athlete/imports/:id",
    response: zImportRun,
    summary:
      "The status of an archive import (extension): counts, failures, and whether it is running, done, refused or interrupted (kept across restarts).",
    tag: "Uploads",
    auth: "token",
    resource: "Import",
    params: z.object({ id: z.string().regex(/^[0-9a-f]{16}$/) }),
    async handler({ platform, auth, params }) {
      const run = await findImportRun(platform, params.id, auth.athleteId);
      if (!run) throw notFound("Import");
      return importStatusBody(run);
    },
  }),
];
