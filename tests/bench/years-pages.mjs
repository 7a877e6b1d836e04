// Run by years.bench.ts under Node (playwright-core): signs each athlete in and opens each page
// `runs` times (after one unmeasured load) at 1280 and at 390 px; prints, as JSON, per page and
// width, the times (ms, Chromium's clock from navigation start) at which the page's own "drawn"
// marker was first set: window.appState.<key> of the app's scripts, heatmapViewer.ready of the viewer
// ("a+b": the later of two markers).
import { chromium } from "playwright-core";

const [url, specText] = process.argv.slice(2);
/** {athletes: [{label, email, password, pages: [{name, path, mark}]}], runs} */
const spec = JSON.parse(specText);
const MARKERS = `(() => {
  const marks = {};
  Object.defineProperty(window, "__drawn", { value: marks });
  window.appState = new Proxy({}, { set(target, key, value) {
    if (!(key in marks)) marks[key] = performance.now();
    target[key] = value;
    return true;
  } });
  const tick = () => {
    if (!("heatmapViewer" in marks) && window.heatmapViewer?.ready) marks.heatmapViewer = performance.now();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
});
const out = {};
const errors = [];
try {
  for (const athlete of spec.athletes) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(MARKERS);
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
    await page.goto(`${url}/login`);
    await page.fill("#email", athlete.email);
    await page.fill("#password", athlete.password);
    await Promise.all([page.waitForURL(`${url}/`), page.click("button[type=submit]")]);
    for (const p of athlete.pages) {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width > 600 ? 900 : 844 });
        const times = [];
        for (let i = 0; i <= spec.runs; i++) {
          await page.goto(`${url}${p.path}`, { waitUntil: "domcontentloaded" });
          // "a+b": the page is drawn when both parts are (the later of the two).
          const marks = p.mark.split("+");
          await page.waitForFunction((ms) => window.__drawn && ms.every((m) => m in window.__drawn), marks, {
            timeout: 60_000,
            polling: 50,
          });
          const ms = await page.evaluate((list) => Math.max(...list.map((m) => window.__drawn[m])), marks);
          const failed = await page.evaluate((list) => list.some((m) => window.appState?.[m] === "failed"), marks);
          if (failed) errors.push(`${p.path}: the page says it failed`);
          if (i > 0) times.push(ms);
        }
        out[`${athlete.label}|${p.name}|${width}`] = times;
      }
    }
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({ times: out, errors }));
