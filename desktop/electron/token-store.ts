import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { safeStorage } from "electron";
import type { StoredToken, TokenStore } from "../core/oauth.ts";

/** The signed-in token encrypted with the OS keychain (Keychain, DPAPI, libsecret/kwallet) via safeStorage. */
export class SafeStorageTokenStore implements TokenStore {
  constructor(readonly path: string) {}
  load(): StoredToken | undefined {
    if (!existsSync(this.path)) return undefined;
    try {
      return JSON.parse(safeStorage.decryptString(readFileSync(this.path)));
    } catch {
      return undefined;
    }
  }
  save(token: StoredToken): void {
    if (!safeStorage.isEncryptionAvailable()) {
      throw new Error("The system keychain isn't available, so the sign-in can't be stored safely.");
    }
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, safeStorage.encryptString(JSON.stringify(token)), { mode: 0o600 });
  }
  clear(): void {
    rmSync(this.path, { force: true });
  }
}
