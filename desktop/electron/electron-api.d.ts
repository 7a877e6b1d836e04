/**
 * The part of Electron's API the shell uses, declared here so that `deno check desktop/` (part of
 * `npm test`) type-checks the shell on a clone where desktop/node_modules is not installed: Electron
 * is the desktop package's own dependency (desktop/package.json), never the root's. deno.json maps
 * the specifier "electron" to this file for type checking only; esbuild (`npm run companion:build`)
 * leaves `require("electron")` to the real runtime. When Electron is upgraded, check these
 * signatures against its electron.d.ts.
 */

export interface LoginItemSettings {
  openAtLogin: boolean;
  wasOpenedAsHidden: boolean;
}

export interface App {
  quit(): void;
  requestSingleInstanceLock(): boolean;
  on(event: "second-instance" | "window-all-closed" | "before-quit", listener: () => void): this;
  whenReady(): Promise<void>;
  setLoginItemSettings(settings: { openAtLogin?: boolean; openAsHidden?: boolean }): void;
  getLoginItemSettings(): LoginItemSettings;
}
export declare const app: App;

export interface WebContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: "deny" | "allow" }): void;
}

export declare class BrowserWindow {
  constructor(options?: {
    width?: number;
    height?: number;
    title?: string;
    webPreferences?: { preload?: string; contextIsolation?: boolean; sandbox?: boolean; nodeIntegration?: boolean };
  });
  readonly webContents: WebContents;
  isDestroyed(): boolean;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
}

export interface OpenDialogReturnValue {
  canceled: boolean;
  filePaths: string[];
}
export declare const dialog: {
  showOpenDialog(
    options: { properties?: Array<"openFile" | "openDirectory" | "multiSelections"> },
  ): Promise<OpenDialogReturnValue>;
  showErrorBox(title: string, content: string): void;
};

export interface IpcMainInvokeEvent {
  readonly sender: unknown;
}
export declare const ipcMain: {
  // deno-lint-ignore no-explicit-any
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: any[]) => unknown): void;
};
export declare const ipcRenderer: {
  // deno-lint-ignore no-explicit-any
  invoke(channel: string, ...args: unknown[]): Promise<any>;
};
export declare const contextBridge: {
  exposeInMainWorld(apiKey: string, api: Record<string, unknown>): void;
};

export interface MenuItemConstructorOptions {
  label?: string;
  enabled?: boolean;
  type?: "normal" | "separator";
  click?: () => void;
}
export declare class Menu {
  static buildFromTemplate(template: MenuItemConstructorOptions[]): Menu;
}

export declare class NativeImage {}
export declare const nativeImage: { createFromDataURL(dataURL: string): NativeImage };

export declare class Notification {
  static isSupported(): boolean;
  constructor(options: { title: string; body: string });
  on(event: "click", listener: () => void): this;
  show(): void;
}

export declare const shell: { openExternal(url: string): Promise<void> };

export declare class Tray {
  constructor(image: NativeImage | string);
  setToolTip(toolTip: string): void;
  setTitle(title: string): void;
  setContextMenu(menu: Menu | null): void;
  on(event: "click", listener: () => void): this;
}

export declare const safeStorage: {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Uint8Array;
  decryptString(encrypted: Uint8Array): string;
};
