import { loadVendor } from '../customers/customer-store';
import type { Engine } from '../engine';
import { type ContentPage, parseLanguage, parseSlug } from './content-page';
import { DEFAULT_LANGUAGES, type DefaultLanguage, defaultPage } from './default-pages';

/**
 * GET /vendor/content/{slug}: the vendor's page in the language asked for, else in the vendor's own
 * language, else in English, else in whichever language the vendor wrote it first. A vendor that
 * never wrote the page gets the built-in default naming it (English or Spanish, version 0).
 */
export async function getVendorContent(engine: Engine, input: { vendorId: number; slug: string; language?: string | undefined }): Promise<ContentPage> {
  const slug = parseSlug(input.slug);
  const requested = input.language === undefined || input.language.trim() === '' ? undefined : parseLanguage(input.language);
  const vendor = await loadVendor(engine.db, input.vendorId);
  const preference = [...new Set([requested, vendor.language, 'en'].filter((l): l is string => l !== undefined))];

  const rows = await engine.db
    .selectFrom('vendor_content')
    .selectAll()
    .where('vendor_id', '=', vendor.id)
    .where('slug', '=', slug)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  // The vendor's own page in another language still beats a generic default: it is their real text.
  const row = preference.map((language) => rows.find((r) => r.language === language)).find((r) => r !== undefined) ?? rows[0];
  if (row) return { slug, language: row.language, title: row.title, content: row.content, version: row.version, updatedAt: row.updated_at };

  const language = preference.find((l): l is DefaultLanguage => (DEFAULT_LANGUAGES as readonly string[]).includes(l)) ?? 'en';
  return { slug, language, ...defaultPage(slug, language, vendor.name), version: 0, updatedAt: null };
}
