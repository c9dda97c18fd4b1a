import { migrations } from '../storage/migrations/index';

// How nodes of different versions tell each other apart (docs/sync.md, "Mixed versions"). Every
// version's package says 0.1.0; what tells one node's sync from another's is its database: the
// last migration it knows. A store sends it with every sync request; central compares it with its
// own when a push carries what central's database cannot hold.

/** The header a store's sync requests carry its schema level in. */
export const SCHEMA_LEVEL_HEADER = 'punchcard-schema';

/** This version's schema level: its highest migration's name (e.g. 0043-webhook-retry-window). */
export const SCHEMA_LEVEL: string = Object.keys(migrations).sort().at(-1)!;

/** A level's order: its migration's number (null for something that is no level). */
function levelNumber(level: string): number | null {
  const match = /^(\d{4})-[a-z0-9-]{1,100}$/.exec(level);
  return match ? Number(match[1]) : null;
}

/** Whether `level` (a header as sent: absent, or of another shape, is not) is later than this node's own. */
export function isNewerLevel(level: string | undefined): level is string {
  return levelBeside(level ?? null) === 'newer';
}

/** A level as a store sent it, when it has a level's shape (kept by central per store: sync_nodes.schema_level); else null. */
export function wellFormedLevel(level: string | undefined): string | null {
  return level !== undefined && levelNumber(level) !== null ? level : null;
}

/** How a store's level stands to this node's own: older, the same, newer; null when unknown (no header, or none since migration 0044). */
export function levelBeside(level: string | null): 'older' | 'same' | 'newer' | null {
  const number = level === null ? null : levelNumber(level);
  if (number === null) return null;
  const own = levelNumber(SCHEMA_LEVEL)!;
  return number < own ? 'older' : number > own ? 'newer' : 'same';
}
