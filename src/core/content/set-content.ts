import { ServiceError } from '../../shared/errors';
import { MAX_CONTENT_BYTES } from '../../shared/schemas/consumer';
import { loadVendor } from '../customers/customer-store';
import { type Engine, transact, type VendorScope } from '../engine';
import { isUniqueViolation } from '../storage/errors';
import { nextObjectId } from '../storage/ids';
import { type ContentPage, parseLanguage, parseSlug } from './content-page';

export interface ContentChange {
  slug: string;
  title: string;
  content: string;
  /** Default: the vendor's language. */
  language?: string | undefined;
}

/**
 * PUT /vendor/content/{slug} (admin token): writes the vendor's page in one language; each write
 * bumps its version. The HTML is the merchant's own and is stored as given (not sanitised), up to
 * 64 KiB.
 */
export async function setVendorContent(engine: Engine, scope: VendorScope, change: ContentChange): Promise<ContentPage> {
  const slug = parseSlug(change.slug);
  const title = change.title.trim();
  if (title.length === 0 || title.length > 200) throw new ServiceError('validation_failed', 'title must be 1 to 200 characters.', 'title');
  if (change.content.trim().length === 0) throw new ServiceError('validation_failed', 'content must not be empty.', 'content');
  if (Buffer.byteLength(change.content, 'utf8') > MAX_CONTENT_BYTES) {
    throw new ServiceError('validation_failed', `content must be at most ${MAX_CONTENT_BYTES / 1024} KiB.`, 'content');
  }
  const write = () =>
    transact(engine, async (trx): Promise<ContentPage> => {
      const vendor = await loadVendor(trx, scope.vendorId);
      const language = change.language === undefined || change.language.trim() === '' ? vendor.language : parseLanguage(change.language);
      const now = engine.clock.now();
      const existing = await trx
        .selectFrom('vendor_content')
        .select('id')
        .where('vendor_id', '=', vendor.id)
        .where('slug', '=', slug)
        .where('language', '=', language)
        .executeTakeFirst();
      let version = 1;
      if (existing) {
        const updated = await trx
          .updateTable('vendor_content')
          .set((eb) => ({ title, content: change.content, version: eb('version', '+', 1), updated_at: now }))
          .where('id', '=', existing.id)
          .returning('version')
          .executeTakeFirstOrThrow();
        version = Number(updated.version);
      } else {
        await trx
          .insertInto('vendor_content')
          .values({ id: await nextObjectId(trx, engine.nodeId), vendor_id: vendor.id, slug, language, title, content: change.content, version, created_at: now, updated_at: now })
          .execute();
      }
      return { slug, language, title, content: change.content, version, updatedAt: now };
    });
  try {
    return await write();
  } catch (error) {
    // The first version of a page was written twice at once (PostgreSQL): the second becomes version 2.
    if (isUniqueViolation(error)) return write();
    throw error;
  }
}
