/**
 * The Electron shell, kept thin: a window showing the core's page, a tray icon with the number of
 * files waiting, a notification when an activity is ready, the token in safeStorage, and IPC for the
 * folder picker and start-at-login. Everything else is the core (desktop/core), which also runs headless.
 */
import { join } from "node:path";
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, Notification, shell, Tray } from "electron";
import { Companion } from "../core/companion.ts";
import { OAuthSession } from "../core/oauth.ts";
import { defaultStateDir, loadSettings } from "../core/settings.ts";
import { startUiServer, type UiServer } from "../core/ui-server.ts";
import { SafeStorageTokenStore } from "./token-store.ts";

const DEFAULT_SERVER = process.env.COMPANION_SERVER ?? "http://localhost:8080";

// A 16×16 orange dot (the tray needs an image; no binary assets in the repository).
const TRAY_ICON =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAQ0lEQVR4nGP4z8Dwn4GBgYGRgYHhPwPDfwYGBoaGhgYGBob/DAwMDP8ZGBgYGBgY/jMwMPxnYGBgYGBg+M/AwMDAAAB0ZQcV3r1i2wAAAABJRU5ErkJggg==";

let window: BrowserWindow | undefined;
let tray: Tray | undefined;
let ui: UiServer | undefined;
let companion: Companion | undefined;

function showWindow(): void {
  if (!ui) return;
  if (!window || window.isDestroyed()) {
    window = new BrowserWindow({
      width: 1000,
      height: 720,
      title: "Fitness Companion",
      webPreferences: {
        preload: join(__dirname, "preload.cjs"),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
      },
    });
    window.webContents.setWindowOpenHandler(({ url }) => {
      void shell.openExternal(url);
      return { action: "deny" };
    });
    void window.loadURL(ui.url);
  }
  window.show();
  window.focus();
}

function updateTray(pending: number): void {
  if (!tray) return;
  const label = pending ? `${pending} waiting to upload` : "Up to date";
  tray.setToolTip(`Fitness Companion — ${label}`);
  if (process.platform === "darwin") tray.setTitle(pending ? String(pending) : "");
  tray.setContextMenu(Menu.buildFromTemplate([
    { label, enabled: false },
    { label: "Open", click: showWindow },
    { label: "Retry now", click: () => companion?.retryNow() },
    { type: "separator" },
    { label: "Quit", click: () => app.quit() },
  ]));
}

async function start(): Promise<void> {
  const stateDir = process.env.COMPANION_STATE_DIR ?? defaultStateDir();
  const settings = loadSettings(stateDir);
  const store = new SafeStorageTokenStore(join(stateDir, "token.bin"));
  companion = new Companion({
    server: settings.server ?? DEFAULT_SERVER,
    tokens: new OAuthSession(store),
    stateDir,
    folders: settings.folders,
  });
  companion.on((event) => {
    updateTray(companion!.state().counts.pending);
    if (event.event === "ready" && "activity_url" in event && Notification.isSupported()) {
      const n = new Notification({ title: "Activity uploaded", body: `${event.file} is ready on the platform.` });
      n.on("click", () => event.activity_url && void shell.openExternal(event.activity_url));
      n.show();
    }
  });
  await companion.start();
  ui = await startUiServer({
    companion,
    stateDir,
    tokenStore: store,
    openExternal: (url) => void shell.openExternal(url),
    onSettings: (s) => app.setLoginItemSettings({ openAtLogin: s.startAtLogin, openAsHidden: true }),
  });
  ipcMain.handle("companion:pick-folder", async () => {
    const result = await dialog.showOpenDialog({ properties: ["openDirectory"] });
    return result.canceled ? undefined : result.filePaths[0];
  });
  ipcMain.handle("companion:set-start-at-login", (_event, on: boolean) => {
    app.setLoginItemSettings({ openAtLogin: !!on, openAsHidden: true });
    return app.getLoginItemSettings().openAtLogin;
  });
  tray = new Tray(nativeImage.createFromDataURL(TRAY_ICON));
  tray.on("click", showWindow);
  updateTray(companion.state().counts.pending);
  if (!app.getLoginItemSettings().wasOpenedAsHidden) showWindow();
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on("second-instance", showWindow);
  app.on("window-all-closed", () => {
    // Keep running in the tray: devices plugged in later are still uploaded.
  });
  app.on("before-quit", () => {
    void companion?.stop();
    void ui?.close();
  });
  app.whenReady().then(start).catch((error) => {
    dialog.showErrorBox("Fitness Companion", (error as Error).message);
    app.quit();
  });
}
