/**
 * The key of each window main opened, by its webContents id: the preload asks for it over IPC
 * (IPC_CREDENTIAL) instead of reading it from the process arguments, which every local user can
 * see. A page of any other window, or a window that has since closed, gets null.
 */
export class WindowCredentials {
  readonly #byWindow = new Map<number, string>();

  set(webContentsId: number, credential: string): void {
    this.#byWindow.set(webContentsId, credential);
  }

  forget(webContentsId: number): void {
    this.#byWindow.delete(webContentsId);
  }

  /** What the IPC answers: the key of that window, only when the page asking is the app's own. */
  answer(webContentsId: number, fromAppPage: boolean): string | null {
    return fromAppPage ? (this.#byWindow.get(webContentsId) ?? null) : null;
  }
}
