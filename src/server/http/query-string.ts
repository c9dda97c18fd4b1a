import qs from 'qs';

/** How qs parses what the plain path does not take (the test compares both with these). */
export const QS_OPTIONS = { depth: 5, arrayLimit: 100 };
/** A key the plain path takes as it is: no brackets, dots, escapes or `+` for qs to interpret. */
const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A request's query string as qs parses it (brackets make objects and arrays, as the original
 * service's clients send them: compat-notes). The counter's calls send plain `key=value&…`, which
 * cost qs ~4 % of a retrieve or check-in (issue 13), so that shape is parsed here to the same
 * result; anything else — brackets, an escaped or unusual key, a repeated key, a name of
 * Object.prototype (qs drops those) — goes to qs.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  if (text.includes('[') || text.includes(']') || /%5[bd]/i.test(text)) return qs.parse(text, QS_OPTIONS);
  const result: Record<string, string> = {};
  let start = 0;
  let count = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    // qs reads the first 1,000 parts (empty ones count); a longer string goes to it whole.
    if (++count > 1000) return qs.parse(text, QS_OPTIONS);
    if (end > start) {
      const equals = text.indexOf('=', start);
      const keyEnd = equals < 0 || equals > end ? end : equals;
      const key = text.slice(start, keyEnd);
      if (!PLAIN_KEY.test(key) || hasOwn.call(result, key) || key in Object.prototype) return qs.parse(text, QS_OPTIONS);
      result[key] = keyEnd === end ? '' : decodeValue(text.slice(keyEnd + 1, end));
    }
    start = end + 1;
  }
  return result;
}

/** A value as qs decodes it: `+` is a space, escapes are UTF-8, a malformed escape stays as sent. */
function decodeValue(raw: string): string {
  const spaced = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
