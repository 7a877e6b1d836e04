// Run by web.bench.ts under Node (playwright-core): signs in, opens an activity page `runs` times and
// prints, as JSON, per run: navigation → map + charts drawn, → full-resolution streams drawn, and the
// time the same page takes to fetch the API data alone (activity + reduced streams, then full streams).
import { chromium } from "playwright-core";

const [url, email, password, activityId, runsText] = process.argv.slice(2);
const runs = Number(runsText);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
  ],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${url}/login`);
  await page.fill("#email", email);
  await page.fill("#password", password);
  await Promise.all([page.waitForURL(`${url}/`), page.click("button[type=submit]")]);
  const out = { drawn: [], full: [], api: [], apiFull: [], html: [], dcl: [], points: 0 };
  for (let i = 0; i < runs + 1; i++) {
    await page.goto(`${url}/activities/${activityId}`);
    await page.waitForFunction(() => window.appState?.activityFull, null, { timeout: 60_000 });
    const s = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      return {
        drawn: window.appState.activityDrawn,
        full: window.appState.activityFull,
        html: nav.responseEnd,
        dcl: nav.domContentLoadedEventEnd,
      };
    });
    // The baseline, in the same page: only fetching what the page needs, no parsing into a map or chart.
    const api = await page.evaluate(async (id) => {
      const token = document.querySelector('meta[name="api-token"]').content;
      const headers = { authorization: `Bearer ${token}` };
      const keys = "latlng,altitude,velocity_smooth,heartrate,watts,cadence,time,distance";
      const t0 = performance.now();
      await Promise.all([
        fetch(`/v3/activities/${id}`, { headers }).then((r) => r.json()),
        fetch(`/v3/activities/${id}/streams?keys=${keys}&resolution=medium`, { headers }).then((r) => r.json()),
      ]);
      const t1 = performance.now();
      const full = await fetch(`/v3/activities/${id}/streams?keys=${keys}`, { headers }).then((r) => r.json());
      return { reduced: t1 - t0, full: performance.now() - t1, points: full[0]?.data?.length ?? 0 };
    }, activityId);
    if (i === 0) continue; // warm-up
    out.drawn.push(s.drawn);
    out.html.push(s.html);
    out.dcl.push(s.dcl);
    out.full.push(s.full);
    out.api.push(api.reduced);
    out.apiFull.push(api.full);
    out.points = api.points;
  }
  out.errors = errors;
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
}
