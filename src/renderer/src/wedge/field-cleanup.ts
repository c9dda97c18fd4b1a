/**
 * A scan that lands in a focused text field: the characters went in (they pass through, so typing is
 * never delayed or altered), the Enter did not (it was swallowed). Once the burst is recognised the
 * scanned text is taken out of the field again, so a scan is never both posted and left in a form.
 */

export interface FieldText {
  value: string;
  /** Caret position; null for fields without selection support (type=email, number). */
  caret: number | null;
}

/** The field's text with `line` removed from just before the caret, or null when it is not there. */
export function withoutScannedText(field: FieldText, line: string): FieldText | null {
  if (!line) return null;
  const caret = field.caret ?? field.value.length;
  const before = field.value.slice(0, caret);
  if (!before.endsWith(line)) return null;
  const start = caret - line.length;
  return { value: field.value.slice(0, start) + field.value.slice(caret), caret: start };
}

type TextField = HTMLInputElement | HTMLTextAreaElement;

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'tel', 'url', 'password', 'number', '']);

/** The element is a field a person types text into (where a scan's characters would land). */
export function isTextField(element: EventTarget | null): element is TextField {
  if (typeof HTMLElement === 'undefined' || !(element instanceof HTMLElement)) return false;
  if (element instanceof HTMLTextAreaElement) return !element.readOnly && !element.disabled;
  if (element instanceof HTMLInputElement) return TEXT_INPUT_TYPES.has(element.type) && !element.readOnly && !element.disabled;
  return false;
}

/** The element takes typed keys in some way (text fields, contenteditable, selects…). */
export function isEditable(element: EventTarget | null): boolean {
  if (isTextField(element)) return true;
  if (typeof HTMLElement === 'undefined' || !(element instanceof HTMLElement)) return false;
  return element.isContentEditable || element instanceof HTMLSelectElement;
}

function caretOf(field: TextField): number | null {
  try {
    return field.selectionStart;
  } catch {
    return null;
  }
}

/**
 * Removes `line` from the focused field if it is right before the caret, the way React sees a user
 * edit (native value setter + an input event), so controlled inputs update their state too.
 */
export function removeScannedText(field: TextField, line: string): boolean {
  const next = withoutScannedText({ value: field.value, caret: caretOf(field) }, line);
  if (!next) return false;
  const prototype = field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setValue = Object.getOwnPropertyDescriptor(prototype, 'value')?.set;
  if (setValue) setValue.call(field, next.value);
  else field.value = next.value;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  try {
    if (next.caret !== null) field.setSelectionRange(next.caret, next.caret);
  } catch {
    // Fields without selection support keep the caret at the end.
  }
  return true;
}
