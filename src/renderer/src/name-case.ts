// How names are typed on the screens: each word starts with a capital by itself, since a customer
// on the kiosk's touch keyboard or a cashier typing fast does not reach for shift ("mia" joined as
// "mia"). The kiosk's keyboard (OnScreenKeyboard) and the counter's register dialog share it.

/** A letter typed now starts a word: the text before it is empty, or ends in a space or a hyphen. */
export const startsWord = (textBefore: string) => textBefore === '' || /[\s-]$/.test(textBefore);

/** A name box's keystroke: the value to keep, and whether the cashier typed a capital themselves. */
export interface NameKeystroke {
  value: string;
  ownCapital: boolean;
}

/**
 * A name box's value after a change from `before` to `after`, the caret now at `caret`: one
 * lower-case letter typed at a word's start comes as a capital. Pastes, deletions and anything
 * else are kept as they are. A capital the cashier typed is reported (`ownCapital`), so the box
 * can leave their typing alone from then on, as touching ABC/abc does on the kiosk.
 */
export function typedInName(before: string, after: string, caret: number | null): NameKeystroke {
  const at = (caret ?? after.length) - 1;
  const typed = after.length === before.length + 1 && at >= 0 && after.slice(0, at) + after.slice(at + 1) === before ? after[at]! : null;
  if (typed === null) return { value: after, ownCapital: false };
  const upper = typed.toUpperCase();
  const lower = typed.toLowerCase();
  if (upper === lower) return { value: after, ownCapital: false };
  if (typed === upper) return { value: after, ownCapital: true };
  return { value: startsWord(after.slice(0, at)) ? after.slice(0, at) + upper + after.slice(at + 1) : after, ownCapital: false };
}
