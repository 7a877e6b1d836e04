// Posts a prebuilt multipart body (a file) to POST /v3/uploads from its own process, so that a
// caller timing other requests meanwhile measures the server, not its own event loop sending 56 MB.
// Usage: node post-upload.mjs <url> <token> <content-type> <body file>; prints {status, body} as JSON.
import { readFileSync } from "node:fs";

const [url, token, contentType, file] = process.argv.slice(2);
const res = await fetch(`${url}/v3/uploads`, {
  method: "POST",
  headers: { authorization: `Bearer ${token}`, "content-type": contentType },
  body: readFileSync(file),
});
const text = await res.text();
let body;
try {
  body = JSON.parse(text);
} catch {
  body = text;
}
process.stdout.write(JSON.stringify({ status: res.status, body }));
