import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every text a person sees or hears comes from a defineStrings table (English and Spanish). This
// catches the easy slips in JSX: a literal aria-label, title, placeholder, label or alt, and literal
// text between tags. Example URLs (placeholders such as https://central.example.com) are allowed.

const ROOT = 'src/renderer/src';

function tsxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsxFiles(path);
    return entry.name.endsWith('.tsx') ? [path] : [];
  });
}

describe('renderer texts', () => {
  it('has no hard-coded words in JSX attributes or text', () => {
    const found: string[] = [];
    for (const file of tsxFiles(ROOT)) {
      const source = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of source.matchAll(/\b(aria-label|title|placeholder|label|alt)="([^"]*)"/g)) {
        const value = match[2]!;
        if (/[A-Za-z]{2,}/.test(value) && !/^https?:\/\//.test(value)) found.push(`${file}: ${match[1]}="${value}"`);
      }
      for (const match of source.matchAll(/>([^<>{}]*[A-Za-z]{2,}[^<>{}]*)</g)) {
        const text = match[1]!.trim();
        // `=>` arrows and generics look like tags to a regex; real JSX text has no code punctuation.
        if (text && !/[=;()&|]/.test(text)) found.push(`${file}: text "${text}"`);
      }
    }
    expect(found).toEqual([]);
  });
});
