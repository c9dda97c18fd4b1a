import qs from 'qs';
import { ServiceError } from '../../shared/errors';
import { checkInput, MAX_BODY_DEPTH } from '../http/input-checks';

// Real clients send bodies as JSON, as form fields, and as JSON text under a form content type
// (curl -d '{"a":1}'). Whatever the content type says, a body that looks like JSON is read as JSON;
// anything else is read as form fields, with brackets for nesting (phone_number[code]=593). Either
// way, what no field may hold (NUL, nesting past MAX_BODY_DEPTH) is refused here, once.

/**
 * `rows`: a body of rows a store already holds (a sync push), where a NUL is not refused: it would
 * stall the store's whole queue at this page; the one event that holds it is refused instead.
 */
export function decodeBody(text: string, options: { rows?: boolean; json?: boolean } = {}): unknown {
  const body = parseBody(text, options.json ?? false);
  checkInput(body, MAX_BODY_DEPTH, !options.rows);
  return body;
}

/**
 * `json`: the content type says JSON, so the body is JSON whatever it starts with — `"text"` or
 * `null` were read as a form field named so, dropped, and the call answered 200 having done nothing.
 */
function parseBody(text: string, json: boolean): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (json || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new ServiceError('invalid_json');
    }
    if (typeof parsed !== 'object' || parsed === null) throw new ServiceError('invalid_json', 'The request body must be a JSON object.');
    return parsed;
  }
  return decodeForm(trimmed);
}

export function decodeForm(text: string): Record<string, unknown> {
  return qs.parse(text, { depth: 5, arrayLimit: 100, parameterLimit: 1000 }) as Record<string, unknown>;
}
