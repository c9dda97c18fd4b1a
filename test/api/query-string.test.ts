import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { parseQueryString, QS_OPTIONS } from '../../src/server/http/query-string';

// The plain path of the query parser must give what qs gives for every string (issue 13).
const qsParse = (text: string) => qs.parse(text, QS_OPTIONS);
const pieces = ['a', 'b', 'api_key', 'x-y', '=', '&', '&&', '+', '%20', '%2', '%E2%9C%93', '%ZZ', '[', ']', '[]', '%5B', '%5d', '.', 'constructor', '__proto__', 'toString', '1', 'é', '?', ';'];

describe('parseQueryString', () => {
  it('parses any string as qs does', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 14 }), (parts) => {
        const text = parts.join('');
        expect(parseQueryString(text)).toStrictEqual(qsParse(text));
      }),
      { numRuns: 3000, seed: 20_261_128 },
    );
  });

  it('parses arbitrary text as qs does', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        expect(parseQueryString(text)).toStrictEqual(qsParse(text));
      }),
      { numRuns: 2000, seed: 20_261_128 },
    );
  });

  it('handles the shapes clients send', () => {
    expect(parseQueryString('api_key=k1&pos_session_hash=abc')).toStrictEqual({ api_key: 'k1', pos_session_hash: 'abc' });
    expect(parseQueryString('q=a+b%20c&flag')).toStrictEqual({ q: 'a b c', flag: '' });
    expect(parseQueryString('bad=%E0%A4%A')).toStrictEqual({ bad: '%E0%A4%A' });
    expect(parseQueryString('ids[]=1&ids[]=2')).toStrictEqual({ ids: ['1', '2'] });
    expect(parseQueryString('a=1&a=2')).toStrictEqual({ a: ['1', '2'] });
    expect(parseQueryString('constructor=1&b=2')).toStrictEqual({ b: '2' });
    const many = Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join('&');
    expect(Object.keys(parseQueryString(many))).toHaveLength(1000);
  });
});
