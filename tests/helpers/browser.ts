import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { ROOT } from "./deno.ts";

/**
 * What the browser suites share (tests/browser): Debian's chromium, headless and offline, signing
 * a demo athlete in, watching the page for errors, uploading a device file with the page's own
 * session token, and screenshots at desktop and phone width.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
/** The base map's tiles cannot load offline (expected). */
export const TILE_HOST = "tile.openstreetmap.org";
/** Screenshots of the browser suites that are looked at, not kept (tests/artifacts is ignored by git). */
export const SHOTS = join(ROOT, "tests", "artifacts", "screens");

export function launchChromium(): Promise<Browser> {
  // A fresh profile each time (launch without a user data dir).
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  /** Console errors (other than the tiles) and uncaught page errors. */
  errors: string[];
}

/** Console errors and page errors of a page, except the base map's tiles and what `ignore` matches. */
export function watchErrors(page: Page, errors: string[], ignore: () => RegExp[] = () => []): void {
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const where = message.location().url ?? "";
    if (where.includes(TILE_HOST)) return;
    const text = `${message.text()} (${where})`;
    if (ignore().some((p) => p.test(text))) return;
    errors.push(`${page.url()}: ${text}`);
  });
  page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
}

export async function signIn(
  browser: Browser,
  baseUrl: string,
  email: string,
  ignore?: () => RegExp[],
): Promise<SignedIn> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  watchErrors(page, errors, ignore);
  await page.goto(`${baseUrl}/login`);
  await page.fill("#email", email);
  await page.fill("#password", "demo-password");
  await Promise.all([page.waitForURL(`${baseUrl}/`), page.click("button[type=submit]")]);
  return { context, page, errors };
}

/** A key of the page's `window.appState` (set by the app's scripts when a part is drawn). */
export const appState = (page: Page, key: string) =>
  page.evaluate((k) => (window as unknown as { appState?: Record<string, unknown> }).appState?.[k], key);

/** Calls the API from the page with its session token (the app's own client); answers the JSON. */
export function pageApi<T = unknown>(
  page: Page,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  // A string, so the test runner does not rewrite the dynamic import of the page's own module.
  return page.evaluate(
    `import("/app/assets/app.js").then((app) => app.api(${JSON.stringify(path)}, ${JSON.stringify(init)}))`,
  ) as Promise<T>;
}

/** Uploads a device file with the page's session token and waits for its activity; answers its id. */
export async function uploadFile(page: Page, file: string, dataType: string): Promise<number> {
  const base64 = readFileSync(file).toString("base64");
  const name = file.split("/").pop()!;
  return await page.evaluate(`(async () => {
    const app = await import("/app/assets/app.js");
    const bytes = Uint8Array.from(atob(${JSON.stringify(base64)}), (c) => c.charCodeAt(0));
    const form = new FormData();
    form.set("file", new Blob([bytes]), ${JSON.stringify(name)});
    form.set("data_type", ${JSON.stringify(dataType)});
    const upload = await app.api("/uploads", { method: "POST", form });
    for (let i = 0; i < 1200; i++) {
      const status = await app.api("/uploads/" + upload.id);
      if (status.activity_id) return status.activity_id;
      if (status.error) throw new Error(status.error);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("upload did not finish");
  })()`) as number;
}

/** Full-page screenshots at 1280 and 390 px wide into tests/artifacts/screens/<name>-desktop|phone.png; answers both paths. */
export async function screenshots(
  page: Page,
  name: string,
  settle: () => Promise<unknown> = () => page.waitForTimeout(300),
): Promise<string[]> {
  mkdirSync(SHOTS, { recursive: true });
  const size = page.viewportSize()!;
  const desktop = join(SHOTS, `${name}-desktop.png`), phone = join(SHOTS, `${name}-phone.png`);
  await page.setViewportSize({ width: 1280, height: size.height });
  await settle();
  await page.screenshot({ path: desktop, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await settle();
    await page.screenshot({ path: phone, fullPage: true });
  } finally {
    await page.setViewportSize(size);
  }
  return [desktop, phone];
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The page's serious and critical axe-core violations, each with its rule, impact and first nodes. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return r.violations.filter((v: any) => v.impact === "serious" || v.impact === "critical")
      // deno-lint-ignore no-explicit-any
      .map((v: any) =>
        `${v.id} (${v.impact}): ${v.nodes.length} × ${
          v.nodes.slice(0, 3).map((n: { target: string[] }) => n.target.join(" ")).join(" | ")
        }`
      );
  });
}
