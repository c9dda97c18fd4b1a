import { type RefObject, useEffect } from 'react';

/**
 * Marks a text field invalid and points it at the message that says why (aria-invalid,
 * aria-describedby), for a message shown apart from the field (an alert above or below a form).
 * Mantine writes both attributes from its own `error` prop only, and overwrites ones passed as
 * props, so they are set on the element; its own description ids are kept.
 */
export function useFieldError(field: RefObject<HTMLElement | null>, errorId: string | null): void {
  useEffect(() => {
    const input = field.current;
    if (!input || !errorId) return;
    const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', [...ids.filter((id) => id !== errorId), errorId].join(' '));
    return () => {
      input.removeAttribute('aria-invalid');
      const rest = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((id) => id && id !== errorId);
      if (rest.length > 0) input.setAttribute('aria-describedby', rest.join(' '));
      else input.removeAttribute('aria-describedby');
    };
  }, [field, errorId]);
}
