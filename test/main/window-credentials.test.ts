import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WindowCredentials } from '../../src/main/window-credentials';
import { ROOT } from '../support/processes';

// Window keys off the command line (issue 17, item 6): main keeps each window's key and answers its
// preload's IPC request; nothing else gets it.

describe('window credentials', () => {
  it("answers each app window its own key, nobody else's, and forgets a closed window", () => {
    const credentials = new WindowCredentials();
    credentials.set(1, 'pcak_cashier');
    credentials.set(2, 'pcak_kiosk');
    expect(credentials.answer(1, true)).toBe('pcak_cashier');
    expect(credentials.answer(2, true)).toBe('pcak_kiosk');
    // A page that is not the app's (navigated away, injected frame) or a window main did not open.
    expect(credentials.answer(1, false)).toBeNull();
    expect(credentials.answer(3, true)).toBeNull();
    credentials.forget(2);
    expect(credentials.answer(2, true)).toBeNull();
  });

  it('the windows put only the address and role in additionalArguments; the preload asks main for the key', () => {
    const windowSource = readFileSync(join(ROOT, 'src/main/window.ts'), 'utf8');
    expect(windowSource).toMatch(/additionalArguments: \[encodeLaunchArg\(options\.launch\)\]/);
    expect(windowSource).not.toMatch(/additionalArguments:[^\n]*credential/);
    const preload = readFileSync(join(ROOT, 'src/preload/index.ts'), 'utf8');
    expect(preload).toMatch(/ipcRenderer\.sendSync\(IPC_CREDENTIAL\)/);
  });
});
