// Posts a prebuilt multipart body (a file) to POST /v3/uploads from its own process, so that a
// caller timing other requests meanwhile measures the server, not its own event loop sending 56 MB.
// Usage: node post-upload.mjs <url> <token> <content-type> <body file>; prints {status, body} as JSON.
//
// The body is streamed 64 KiB per write, as curl and browsers send a file. Handing the whole body
// to one write (fetch with a Buffer) makes one write system call of megabytes; over loopback the
// kernel also does the server's receive work inside that call, and a kernel without preemption
// (this machine's: PREEMPT_NONE) does not switch away from it, so the server's event loop, woken
// on the same core, waited up to 62 ms behind a nice-19 sender (perf sched, docs/bench-profiles.md).
import { createReadStream, statSync } from "node:fs";
import { request } from "node:http";

const CHUNK = 64 * 1024;
const [url, token, contentType, file] = process.argv.slice(2);

const { status, text } = await new Promise((resolve, reject) => {
  const req = request(new URL("/v3/uploads", url), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": contentType,
      "content-length": String(statSync(file).size),
    },
  }, (res) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (d) => (text += d));
    res.on("end", () => resolve({ status: res.statusCode, text }));
    res.on("error", reject);
  });
  req.on("error", reject);
  createReadStream(file, { highWaterMark: CHUNK }).on("error", reject).pipe(req);
});
let body;
try {
  body = JSON.parse(text);
} catch {
  body = text;
}
process.stdout.write(JSON.stringify({ status, body }));
