import { useEffect } from 'react';
import { eventStream } from '../events/event-stream';
import type { Cashier } from './cashier-controller';
import { CHECK_IN_INPUT_ID } from './context';
import { createShortcutGate, describeTarget, resolveShortcut, type ShortcutAction } from './shortcuts';

/** What each shortcut does on the cashier screen. */
function run(cashier: Cashier, action: ShortcutAction): void {
  const { queue, customer, ui } = cashier;
  const panel = customer.getState();
  const canAct = panel.phase === 'ready' && panel.ended === null && panel.busy === null && eventStream().state.getState().status !== 'offline';
  switch (action) {
    case 'focusCheckIn': {
      const input = document.getElementById(CHECK_IN_INPUT_ID);
      if (input instanceof HTMLInputElement) {
        input.focus();
        input.select();
      }
      break;
    }
    case 'leaveField':
      if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
      break;
    case 'next':
      queue.getState().moveCursor(1);
      break;
    case 'previous':
      queue.getState().moveCursor(-1);
      break;
    case 'open': {
      const { cursor, entries } = queue.getState();
      const entry = entries.find((e) => e.hash === cursor);
      if (entry) void cashier.openSession(entry.hash, entry.id);
      break;
    }
    case 'order':
      if (canAct) ui.getState().show('order');
      break;
    case 'closeSession':
      if (canAct) ui.getState().show('confirmClose');
      break;
    case 'register':
      ui.getState().show('register');
      break;
    case 'help':
      ui.getState().show('help');
      break;
  }
}

/** The cashier's keyboard: one window listener, through the scanner-burst gate. */
export function useCashierShortcuts(cashier: Cashier): void {
  useEffect(() => {
    const gate = createShortcutGate();
    function onKeyDown(event: KeyboardEvent) {
      if (event.isComposing || event.repeat) return;
      const dialogOpen = cashier.ui.getState().dialog !== null;
      const resolved = resolveShortcut(event, describeTarget(event.target, dialogOpen));
      if (resolved && !resolved.guarded && resolved.action !== 'leaveField') event.preventDefault();
      gate.key(resolved, (action) => run(cashier, action));
    }
    window.addEventListener('keydown', onKeyDown);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      // A shortcut pressed just before the screen left must not act on it afterwards.
      gate.cancel();
    };
  }, [cashier]);
}
