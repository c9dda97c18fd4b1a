import { ServiceError } from '../../shared/errors';

// Bodies arrive as JSON, as form fields, and as JSON or form text under a form type, under
// text/plain (what fetch and sendBeacon send for a string) or under no type at all (compat-notes).
// Any other type (XML, multipart, octet-stream) was read as form text and answered as if its
// fields were missing; it is refused instead, naming the types that are read.
const READ_AS_SENT = new Set(['application/json', 'application/x-www-form-urlencoded', 'text/plain']);

/** The content type says JSON (application/json, or a +json type). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const essence = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return essence === 'application/json' || essence.endsWith('+json');
}

/** Throws 415 unsupported_media_type for a body under a content type the node does not read. */
export function requireReadableMediaType(contentType: string | undefined): void {
  if (contentType === undefined) return;
  const essence = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  if (essence === '' || READ_AS_SENT.has(essence) || essence.endsWith('+json')) return;
  throw new ServiceError('unsupported_media_type');
}
