// What a store node and central say to each other (docs/sync.md). Plain JSON over HTTP; the
// simulation passes the same objects through its lossy in-memory network.

/** One captured row change: the row as the writing transaction left it. */
export interface RowChange {
  tbl: string;
  op: 'upsert' | 'delete';
  data: Record<string, unknown>;
}

/** A balance a store believed available when a command spent from it (before the command's entries). */
export interface BelievedBalance {
  holder_type: string;
  holder_id: number;
  currency_id: number;
  balance: number;
}

/**
 * A row an event made whose id its store changed when it followed central after a restore (the
 * lost copy's rows held the id): [table, an id the row had, its id now]. Every earlier id of a
 * row moved twice is listed (docs/sync.md, "Restored twice from one backup").
 */
export type MovedRowId = [table: string, from: number, to: number];

/** The changes of one local-first command at a store, numbered gaplessly per node. */
export interface PushedEvent {
  node_seq: number;
  event_id: string;
  type: string;
  offline: boolean;
  created_at: number;
  changes: RowChange[];
  /** For a command that spent: what the store believed each spent-from account held. */
  believed_available?: BelievedBalance[];
  /** The rows it made that took new ids since it was made (central keeps them, for a copy restored again). */
  moved_ids?: MovedRowId[];
}

/** Most events central takes in one push (POST /sync/push refuses more). */
export const PUSH_EVENTS_MAX = 1000;

export interface PushRequest {
  events: PushedEvent[];
}

export type Verdict = 'applied' | 'rejected';

export interface EventVerdict {
  node_seq: number;
  event_id: string;
  verdict: Verdict;
  code: string | null;
  message: string | null;
  /**
   * An event central took at another node_seq, sent there with some of its rows under new ids (a
   * lost copy followed central and moved them): the ids they have at central. The store moves its
   * copies of those rows there before anything else. Absent otherwise, and from earlier centrals.
   */
  moved_ids?: MovedRowId[];
}

export interface PushResponse {
  results: EventVerdict[];
  /**
   * Set when central is missing earlier events, or took only the first part of the page (too many
   * events to apply one by one in one transaction): the node sends from this node_seq.
   */
  resume_from: number | null;
  /**
   * Set when an event sits at a node_seq where central took a different one (a store restored from
   * a backup): nothing from there on was applied or answered, and the store renumbers (docs/sync.md).
   * Absent from a central of an earlier version.
   */
  diverged?: PushDivergence;
}

/**
 * Where a store's events part from what central took of the same node (a store restored from a
 * backup reuses the node_seqs, and the row ids, of the sales it made after the backup and pushed).
 */
export interface PushDivergence {
  /** The first node_seq whose event is not the one central took there. */
  node_seq: number;
  /** The node's last node_seq central took: the store's events from `node_seq` on are numbered after it. */
  last_seq: number;
  /** The highest id of this node's range central holds (null: none): rows the store made from `node_seq` on at or below it take new ids. */
  highest_id: number | null;
}

export interface PulledChange extends RowChange {
  seq: number;
}

export interface PullResponse {
  changes: PulledChange[];
  /** The cursor to pull after next time (the last seq considered, sent or not). */
  cursor: number;
  /** The newest seq in central's log: lag = head - cursor. */
  head: number;
  more: boolean;
}

export interface PairResponse {
  node_id: number;
  vendor_id: number;
  store_id: number;
  /** The store's name, for the messages that say what was paired (absent from centrals before 2026-12-05). */
  store_name?: string;
  credential: string;
}

/** One page of a first sync's snapshot: a table's rows after `after` (by id), as the pull path ships them. */
export interface SnapshotPage {
  table: string;
  rows: Array<Record<string, unknown>>;
  /** The last id of this page (the next page asks after it); `after` again when the page is empty. */
  last: number;
  /** More rows of this table may follow. */
  more: boolean;
  /** Central's log head, read before the rows: the first page's head is the cursor the log resumes from. */
  head: number;
  /** Asked for with `estimate`: about how many rows the whole snapshot holds (for progress). */
  estimate?: number;
  /**
   * With `estimate`: each table's count of it, read after `head`. A store skips the tables counted
   * 0 (rows they get later come by the log); absent from centrals before the twelfth round.
   */
  counts?: Record<string, number>;
}

/**
 * A customer asked of central by a store still taking its first sync (POST /sync/customer): the
 * customer's rows, each table's shaped as its snapshot pages are, in REPLICATED_TABLES order.
 */
export interface CustomerRows {
  tables: Array<{ table: string; rows: Array<Record<string, unknown>> }>;
}

/** Rows of one table as a list of columns and one array of values per row. */
export interface RowTable {
  columns: string[];
  rows: unknown[][];
}

/**
 * A snapshot page as a link hands it to the store: rows as objects (in-process links, a central of
 * an earlier version), or as central sends them over HTTP when asked for `format=columns` — each row
 * an array of its values under one list of columns: about a third of the bytes, parsed faster.
 */
export type SnapshotPageOnTheWire = SnapshotPage | (Omit<SnapshotPage, 'rows'> & RowTable);

/** Rows as columns and values, however they travelled; objects may differ in keys (a missing one reads as undefined). */
export function rowTableOf(page: { rows: Array<Record<string, unknown>> } | RowTable): RowTable {
  if ('columns' in page) return page;
  const seen = new Set<string>();
  const columns: string[] = [];
  for (const row of page.rows) {
    for (const key in row) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  return { columns, rows: page.rows.map((row) => columns.map((c) => row[c])) };
}

export interface SnapshotRequest {
  table: string;
  after: number;
  limit: number;
  estimate?: boolean;
}
