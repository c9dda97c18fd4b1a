import { ServiceError } from '../../shared/errors';
import { languageById } from '../../shared/languages';
import { CONTENT_SLUGS } from '../../shared/schemas/consumer';

export type ContentSlug = (typeof CONTENT_SLUGS)[number];

/** A vendor's content page (terms of service, privacy policy, FAQ) in one language. */
export interface ContentPage {
  slug: ContentSlug;
  language: string;
  title: string;
  /** Trusted merchant HTML: set only with the vendor's admin token, served as written. */
  content: string;
  /** 0: the built-in default; 1, 2, …: each change the vendor made. */
  version: number;
  /** Epoch ms of the last change; null for the built-in default. */
  updatedAt: number | null;
}

export function parseSlug(slug: string): ContentSlug {
  const found = CONTENT_SLUGS.find((s) => s === slug.toLowerCase());
  if (!found) throw new ServiceError('content_not_found', `There is no "${slug}" page; pages are ${CONTENT_SLUGS.join(', ')}.`);
  return found;
}

/** A two-letter language code in any case, or a legacy language number (1 English, 2 Spanish). */
export function parseLanguage(value: string): string {
  const text = value.trim().toLowerCase();
  const code = /^\d+$/.test(text) ? languageById(Number(text))?.code : text;
  if (code === undefined || !/^[a-z]{2}$/.test(code)) {
    throw new ServiceError('validation_failed', 'language must be a two-letter code (en, es…) or a language number.', 'language');
  }
  return code;
}
