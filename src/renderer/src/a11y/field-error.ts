import type { Ref, RefCallback } from 'react';

/**
 * The one way a message shown apart from its field (an alert above or below the form: a refused
 * check-in, store key or save) is tied to that field, on every screen: the field is marked invalid
 * and described by the message itself (aria-invalid, and the message's id added to
 * aria-describedby; Mantine's own description ids are kept). Mantine writes both attributes from
 * its own `error` only, overwriting ones passed as props, and its `error` text would say the
 * message a second time; so this ref sets them on the element. It is a new function each render:
 * React runs it after every commit of the field (after Mantine's attributes are written) and its
 * cleanup puts back what it found before the next one, so the two never fight. `own` is the
 * field's own ref, kept working.
 */
export function fieldErrorRef(errorId: string | null, own?: Ref<HTMLElement | null>): RefCallback<HTMLElement> {
  return (element) => {
    if (!element) return;
    const releaseOwn = attach(own, element);
    const releaseMark = errorId ? markInvalid(element, errorId) : null;
    return () => {
      releaseMark?.();
      releaseOwn();
    };
  };
}

function markInvalid(element: HTMLElement, errorId: string): () => void {
  const invalid = element.getAttribute('aria-invalid');
  const ids = describedBy(element);
  element.setAttribute('aria-invalid', 'true');
  if (!ids.includes(errorId)) element.setAttribute('aria-describedby', [...ids, errorId].join(' '));
  return () => {
    if (invalid === null) element.removeAttribute('aria-invalid');
    else element.setAttribute('aria-invalid', invalid);
    const rest = describedBy(element).filter((id) => ids.includes(id) || id !== errorId);
    if (rest.length > 0) element.setAttribute('aria-describedby', rest.join(' '));
    else element.removeAttribute('aria-describedby');
  };
}

function describedBy(element: HTMLElement): string[] {
  return (element.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
}

/** Gives the element to the field's own ref; returns what takes it back. */
function attach(own: Ref<HTMLElement | null> | undefined, element: HTMLElement): () => void {
  if (!own) return () => undefined;
  if (typeof own === 'function') {
    const cleanup = own(element);
    return typeof cleanup === 'function' ? cleanup : () => void own(null);
  }
  own.current = element;
  return () => {
    own.current = null;
  };
}
