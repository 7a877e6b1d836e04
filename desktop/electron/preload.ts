/** Exposes the few things only the shell can do to the page, as `window.companionShell`. */
import { contextBridge, ipcRenderer } from "electron";

contextBridge.exposeInMainWorld("companionShell", {
  pickFolder: (): Promise<string | undefined> => ipcRenderer.invoke("companion:pick-folder"),
  setStartAtLogin: (on: boolean): Promise<boolean> => ipcRenderer.invoke("companion:set-start-at-login", on),
});
