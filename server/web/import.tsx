/**
 * /settings/import: upload a Strava or Garmin Connect export archive and watch the import. No
 * script (the pages' CSP allows none): a plain multipart form whose file is streamed to disk, then a
 * progress page that refreshes itself (Refresh header) until the import is done.
 */
import { rmSync } from "node:fs";
import { type Context, Hono } from "hono";
import { inboxPath } from "../archive/inbox.ts";
import {
  ArchiveTooLarge,
  checkDeclaredSize,
  DEFAULT_MAX_IMPORT_BYTES,
  receiveArchive,
  ReceiveError,
} from "../archive/receive.ts";
import { findImportRun, importFailurePages, type ImportRun, importRunsOf, startImportRun } from "../archive/runs.ts";
import type { Platform } from "../platform.ts";
import { Csrf, ErrorBox } from "./layout.tsx";
import { redirectToSignIn } from "./redirect.ts";
import { type Web, web } from "./context.tsx";

const CSS = `
.progress{width:100%;height:1.1rem;margin:.5rem 0}
.counts{display:grid;grid-template-columns:repeat(4,1fr);gap:.5rem;margin:1rem 0;text-align:center}
.counts div{border:1px solid #dde1e6;border-radius:6px;padding:.5rem}
.counts strong{display:block;font-size:1.4rem}
td.file{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;word-break:break-all}
`;

class CsrfRefused extends Error {}

/** A request a browser made for a page of another site (Fetch Metadata, else Origin against Host). */
function crossSiteRequest(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site !== "same-origin" && site !== "none";
  const origin = c.req.header("origin");
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== c.req.header("host");
  } catch {
    return true;
  }
}

/**
 * Whether a browser sent the request: browsers send Origin with every POST (and Sec-Fetch-Site).
 * Sec-Fetch-Mode alone is not one: Node's fetch sends it too.
 */
function fromBrowser(c: Context): boolean {
  return c.req.header("origin") !== undefined || c.req.header("sec-fetch-site") !== undefined;
}

/**
 * A refusal answered while the client may still be sending its body: the connection is closed
 * after the answer, so the rest of the body is never read.
 */
function refused(response: Response): Response {
  response.headers.set("connection", "close");
  return response;
}

/** A CSV cell: quoted, and a leading = + - @ defused (a spreadsheet would run it as a formula). */
function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${text.replace(/"/g, '""')}"`;
}

function formatBytes(n: number): string {
  return n >= 1024 ** 3 ? `${+(n / 1024 ** 3).toFixed(1)} GiB` : `${+(n / 1024 ** 2).toFixed(1)} MiB`;
}

function eta(run: ImportRun): string {
  const p = run.progress;
  if (run.state !== "running") return "";
  if (p.done === 0 || p.total === 0) return "estimating…";
  const seconds = Math.round(((Date.now() - p.startedAt) / 1000 / p.done) * Math.max(0, p.total - p.done));
  return seconds >= 60 ? `about ${Math.ceil(seconds / 60)} min left` : `about ${seconds} s left`;
}

function ImportForm(props: { csrf: string; error?: string; runs: ImportRun[] }) {
  return (
    <>
      <style>{CSS}</style>
      <div class="card">
        <h1>Import your history</h1>
        <p>
          Upload the archive you downloaded from <strong>Strava</strong>{" "}
          (Settings → My Account → Download or delete your account → Request your archive) or from{" "}
          <strong>Garmin Connect</strong> (Account → Data management → Export your data).
        </p>
        <p class="muted">
          Every recording is processed like an upload; names, descriptions, types, commute flags, gear and photos are
          kept. Importing the same archive again adds nothing twice, so an interrupted import is finished by importing
          it again.
        </p>
        <ErrorBox message={props.error} />
        {/* The token is in the action's URL too: it is checked before a byte of the body is read. */}
        <form method="post" action={`/settings/import?_csrf=${props.csrf}`} enctype="multipart/form-data">
          <Csrf token={props.csrf} />
          <label for="file">Export archive (.zip)</label>
          <input type="file" id="file" name="file" accept=".zip,application/zip" required />
          <div class="actions">
            <button type="submit">Import archive</button>
          </div>
        </form>
      </div>
      {props.runs.length > 0
        ? (
          <div class="card">
            <h2>Recent imports</h2>
            <table>
              <thead>
                <tr>
                  <th>Archive</th>
                  <th>Status</th>
                  <th>Imported</th>
                </tr>
              </thead>
              <tbody>
                {props.runs.map((r) => (
                  <tr>
                    <td>
                      <a href={`/settings/import/${r.id}`}>{r.fileName}</a>
                    </td>
                    <td>{r.state}</td>
                    <td>{r.progress.imported}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
        : null}
    </>
  );
}

function Progress(props: { run: ImportRun }) {
  const { run } = props;
  const p = run.progress;
  const label = run.state === "running"
    ? `Importing ${p.layout === "garmin" ? "a Garmin Connect" : p.layout === "strava" ? "a Strava" : "an"} export…`
    : run.state === "done"
    ? "Import finished"
    : run.state === "interrupted"
    ? "Import interrupted"
    : "Archive refused";
  return (
    <>
      <style>{CSS}</style>
      <div class="card">
        <h1>{label}</h1>
        <p class="muted">{run.fileName}</p>
        {run.state === "refused" ? <ErrorBox message={`Nothing was imported: ${run.error}`} /> : null}
        {run.state === "done" ? <div class="notice" role="status">The archive has been imported.</div> : null}
        {run.state === "interrupted"
          ? (run.error
            ? <ErrorBox message={`The import stopped before the end: ${run.error}`} />
            : (
              <div class="notice" role="status">
                The server was restarted during this import. It resumes where it stopped as soon as the server is up
                again (nothing is imported twice).
              </div>
            ))
          : null}
        {run.state !== "refused"
          ? (
            <>
              <progress class="progress" id="progress" max={Math.max(1, p.total)} value={p.done}></progress>
              <p id="done">
                {run.state === "running" && p.total === 0
                  ? "Reading the archive…"
                  : `${p.done} of ${p.total} activities${eta(run) ? ` · ${eta(run)}` : ""}`}
              </p>
              <div class="counts">
                <div>
                  <strong id="imported">{p.imported}</strong>imported
                </div>
                <div>
                  <strong id="duplicates">{p.duplicates}</strong>already here
                </div>
                <div>
                  <strong id="skipped">{p.skipped}</strong>not workouts
                </div>
                <div>
                  <strong id="failed">{p.failedCount}</strong>failed
                </div>
              </div>
            </>
          )
          : null}
        {p.failed.length > 0
          ? (
            <>
              <h2>Files that could not be imported</h2>
              {p.failedCount > p.failed.length
                ? (
                  <p id="failures-more">
                    The first {p.failed.length} of {p.failedCount} are listed here.{" "}
                    <a href={`/settings/import/${run.id}/failures.csv`}>Download the full list</a> (CSV).
                  </p>
                )
                : null}
              <table id="failures">
                <thead>
                  <tr>
                    <th>File</th>
                    <th>Why</th>
                  </tr>
                </thead>
                <tbody>
                  {p.failed.map((f) => (
                    <tr>
                      <td class="file">{f.file}</td>
                      <td>{f.error}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )
          : null}
        <div class="actions">
          <a class="button" href="/settings/import">{run.state === "running" ? "Import another archive" : "Back"}</a>
        </div>
      </div>
    </>
  );
}

async function refusedForm(platform: Platform, w: Web, error: string, status: number) {
  return await w.render(
    "Import your history",
    <ImportForm csrf={w.csrf} error={error} runs={await importRunsOf(platform, w.athlete!.id)} />,
    status,
  );
}

function ImportNotFound() {
  return (
    <div class="card">
      <h1>Import not found</h1>
      <p>
        <a href="/settings/import">Import an archive</a>
      </p>
    </div>
  );
}

/** GET /settings/import: the form and the athlete's imports. */
async function importForm(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  return w.render(
    "Import your history",
    <ImportForm csrf={w.csrf} runs={await importRunsOf(platform, w.athlete.id)} />,
  );
}

/** POST /settings/import: the archive, streamed to the inbox, then its import started. */
async function receiveImport(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  // Checked before the body is read: the form sends its token in the action's URL (scripts may use
  // the X-CSRF-Token header). A token only inside the body would be seen after reading up to it,
  // and a forged body need never reach it, so a browser's request without the token in its URL (another
  // site's form, or a page from before this rule) is refused at once, as is one another site made.
  // Only a client that is not a browser (no Origin, no Sec-Fetch-Site: it cannot carry the athlete's
  // cookie for another site) may still send the token as the form's first field.
  const expired = "The form has expired (security token). Reload the page and try again.";
  const token = c.req.query("_csrf") ?? c.req.header("x-csrf-token");
  if (crossSiteRequest(c) || (token !== undefined ? !(await w.csrfOk(token)) : fromBrowser(c))) {
    return refused(await refusedForm(platform, w, expired, 403));
  }
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
      async (fields) => {
        if (token === undefined && !(await w.csrfOk(fields._csrf))) throw new CsrfRefused();
      },
      maxBytes,
    );
  } catch (error) {
    rmSync(path, { force: true });
    if (error instanceof CsrfRefused) return refused(await refusedForm(platform, w, expired, 403));
    if (error instanceof ArchiveTooLarge) {
      return refused(
        await refusedForm(
          platform,
          w,
          error.code === "too large"
            ? `This archive is larger than this server accepts (${
              formatBytes(maxBytes)
            }). Import it from the command line: npm run cli -- import-archive FILE.zip --athlete ${w.athlete.id}.`
            : "The server does not have enough disk space left for this archive. Ask its operator to free some.",
          413,
        ),
      );
    }
    if (error instanceof ReceiveError) {
      return refused(await refusedForm(platform, w, `The upload was incomplete: ${error.message}.`, 400));
    }
    throw error;
  }
  if (!received.file || received.file.bytes === 0) {
    rmSync(path, { force: true });
    return refusedForm(platform, w, "Choose the archive (.zip) to import.", 400);
  }
  const run = await startImportRun(platform, {
    athleteId: w.athlete.id,
    path,
    fileName: received.file.name,
    bytes: received.file.bytes,
    via: "web",
  });
  return c.redirect(`/settings/import/${run.id}`, 303);
}

/**
 * GET /settings/import/:id/failures.csv: every failure of an import (the page lists the first
 * ones), read and written a page of the import's events at a time.
 */
async function importFailures(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const pages = await importFailurePages(platform, c.req.param("id") ?? "", w.athlete.id);
  if (!pages) return w.render("Import not found", <ImportNotFound />, 404);
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let header = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (header) {
        header = false;
        return controller.enqueue(encoder.encode("file,error\r\n"));
      }
      const next = await iterator.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value.map((f) => `${csvCell(f.file)},${csvCell(f.error)}\r\n`).join("")));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="import-${c.req.param("id")}-failures.csv"`,
      "cache-control": "private, no-store",
    },
  });
}

/** GET /settings/import/:id: an import's progress (refreshing itself while it runs). */
async function importProgress(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const run = await findImportRun(platform, c.req.param("id") ?? "", w.athlete.id);
  if (!run) return w.render("Import not found", <ImportNotFound />, 404);
  if (run.state === "running" || (run.state === "interrupted" && !run.error)) c.header("refresh", "2");
  return w.render(run.state === "running" ? "Importing…" : "Import", <Progress run={run} />);
}

/** GET/POST /settings/import and GET /settings/import/:id, mounted at `/settings/import`. */
export function importPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/", (c) => importForm(c, platform));
  pages.post("/", (c) => receiveImport(c, platform));
  pages.get("/:id/failures.csv", (c) => importFailures(c, platform));
  pages.get("/:id", (c) => importProgress(c, platform));
  return pages;
}
