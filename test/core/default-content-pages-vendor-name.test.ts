import { describe, expect, it } from 'vitest';
import { DEFAULT_LANGUAGES, defaultPage } from '../../src/core/content/default-pages';
import { CONTENT_SLUGS } from '../../src/shared/schemas/consumer';

// The built-in pages put the vendor's name between tags only: there it needs &, < and > escaped and
// nothing else, so the HTML the back office shows for editing reads "Lupe's", not "Lupe&#39;s".
describe('the vendor’s name in the built-in content pages', () => {
  it.each(CONTENT_SLUGS.flatMap((slug) => DEFAULT_LANGUAGES.map((language) => [slug, language] as const)))('%s (%s) keeps apostrophes and quotes as typed', (slug, language) => {
    const { content } = defaultPage(slug, language, 'Lupe’s "Best" Bakery, Lupe\'s');
    expect(content).toContain('Lupe’s "Best" Bakery, Lupe\'s');
    expect(content).not.toMatch(/&#39;|&quot;/);
  });

  it('still escapes what would be markup: a name cannot add a tag or a script', () => {
    const { content } = defaultPage('faq', 'en', '<script>alert(1)</script> & <img src=x onerror=alert(2)>');
    expect(content).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;');
    expect(content).not.toMatch(/<script|<img/);
  });
});
