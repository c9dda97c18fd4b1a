import { describe, expect, it } from 'vitest';
import { csvField, unguardedField } from '../../src/shared/csv-field';
import { problemRowsCsv } from '../../src/core/import/problem-rows-csv';
import { readMemberFile } from '../../src/core/import/member-file';

// The back office's CSV files (period statement, problem rows, members list) share one field
// writer. The whole files are checked over HTTP in their own tests; here, what a spreadsheet would
// run. Seventeenth round: the problem rows let "+1+HYPERLINK(…)" and "-2+3" through (a review proved it).
describe('a CSV field a merchant opens in a spreadsheet', () => {
  it('quotes a value with the separator, a quote or a line break', () => {
    expect(csvField('Norte')).toBe('Norte');
    expect(csvField('Sur, "El Ejido"')).toBe('"Sur, ""El Ejido"""');
    expect(csvField('Line\nTwo')).toBe('"Line\nTwo"');
    expect(csvField('12,50', ';')).toBe('12,50');
    expect(csvField('a;b', ';')).toBe('"a;b"');
  });

  it('keeps anything a spreadsheet would run as text, with a leading apostrophe', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect([csvField('+1 store'), csvField('-x'), csvField('@sum'), csvField('\tcmd')]).toEqual(["'+1 store", "'-x", "'@sum", "'\tcmd"]);
    expect(csvField('+1+HYPERLINK("http://evil.test","click")')).toBe(`"'+1+HYPERLINK(""http://evil.test"",""click"")"`);
    expect(csvField('-2+3')).toBe("'-2+3");
  });

  it('leaves a phone or an amount as written, so an import reads it back', () => {
    expect([csvField('+1 415 555 0100'), csvField('+34600111222'), csvField('-12.50'), csvField('+593 (99) 123-4567')]).toEqual(['+1 415 555 0100', '+34600111222', '-12.50', '+593 (99) 123-4567']);
  });

  it('reads a guarded value back as it was, and leaves any other apostrophe', () => {
    for (const value of ['-ana@example.com', '=x', '+1+HYPERLINK("a")', '@sum']) expect(unguardedField(csvField(value).replace(/^"|"$/g, '').replaceAll('""', '"'))).toBe(value);
    expect([unguardedField("'Tis"), unguardedField("O'Brien"), unguardedField("'+1 415 555 0100")]).toEqual(["'Tis", "O'Brien", "'+1 415 555 0100"]);
  });

  it('guards the problem rows file the same way', () => {
    const file = readMemberFile('first_name,last_name,email\n+1+HYPERLINK("http://evil.test"),-2+3,bad@\n');
    const report = { reported: [{ line: 2, outcome: 'refused' as const, reason: 'invalid_email', message: 'bad email' }] };
    const csv = problemRowsCsv(file, report as never, 'en');
    expect(csv).toContain(`"'+1+HYPERLINK(""http://evil.test"")",'-2+3,bad@`);
  });
});
