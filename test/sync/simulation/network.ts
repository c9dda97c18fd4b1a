import type { CustomerRows, PullResponse, PushRequest, PushResponse, SnapshotPageOnTheWire, SnapshotRequest } from '../../../src/core/sync/protocol';
import type { SyncTransport } from '../../../src/core/sync/store/sync-client';
import type { Random } from './random';

/** What the simulated link does to a store's calls; each fault is a probability per call. */
export interface LinkFaults {
  /** The request never reaches central. */
  drop: number;
  /** Central commits, the reply is lost (a crash between commit and acknowledgement looks the same). */
  loseReply: number;
  /** The request is delivered twice. */
  duplicate: number;
  /** An old request, delayed in the network, arrives now (before this one). */
  replayOld: number;
  /** Besides `loseReply`: the reply to a first snapshot page (the one with the counts) is lost. */
  loseFirstPage?: number;
}

export class LossyLink implements SyncTransport {
  partitioned = false;
  faults: LinkFaults;
  /** Customers central answered about for a waiting counter (first sync) that reached the store. */
  customersAnswered = 0;
  /** Pushes whose reply was lost, that central took twice, or that an old push came before. */
  pushesDisturbed = 0;
  /** First snapshot pages (those with the counts) whose reply was lost. */
  firstPagesLost = 0;
  readonly #sent: PushRequest[] = [];

  constructor(
    private readonly inner: SyncTransport,
    private readonly random: Random,
    faults: LinkFaults,
  ) {
    this.faults = faults;
  }

  heal(): void {
    this.partitioned = false;
    this.faults = { drop: 0, loseReply: 0, duplicate: 0, replayOld: 0 };
  }

  async push(request: PushRequest): Promise<PushResponse> {
    this.#refuseWhenDown();
    const replayed = this.#sent.length > 0 && this.random.chance(this.faults.replayOld);
    if (replayed) await this.inner.push(this.random.pick(this.#sent)).catch(() => undefined);
    this.#sent.push(structuredClone(request));
    if (this.#sent.length > 20) this.#sent.shift();
    return this.#deliver(() => this.inner.push(structuredClone(request)), (faulted) => void ((faulted || replayed) && (this.pushesDisturbed += 1)));
  }

  async pull(after: number, limit: number): Promise<PullResponse> {
    this.#refuseWhenDown();
    return this.#deliver(() => this.inner.pull(after, limit));
  }

  async snapshot(request: SnapshotRequest): Promise<SnapshotPageOnTheWire> {
    this.#refuseWhenDown();
    const page = await this.#deliver(() => this.inner.snapshot!(request), (_twice, lost) => void (lost && request.estimate && (this.firstPagesLost += 1)));
    // Drawn only on a link given this fault: every other link's stream stays as it was.
    if (request.estimate && (this.faults.loseFirstPage ?? 0) > 0 && this.random.chance(this.faults.loseFirstPage!)) {
      this.firstPagesLost += 1;
      throw new Error('network: reply lost');
    }
    return page;
  }

  async customer(identification: string): Promise<CustomerRows> {
    this.#refuseWhenDown();
    const rows = await this.#deliver(() => this.inner.customer!(identification));
    this.customersAnswered += 1;
    return rows;
  }

  #refuseWhenDown(): void {
    if (this.partitioned) throw new Error('network: partitioned');
    if (this.random.chance(this.faults.drop)) throw new Error('network: request dropped');
  }

  /** `seen` learns whether central was called twice or the reply lost (the simulation counts the cases it made). */
  async #deliver<T>(call: () => Promise<T>, seen?: (faulted: boolean, lost: boolean) => void): Promise<T> {
    let reply = await call();
    const twice = this.random.chance(this.faults.duplicate);
    if (twice) reply = await call();
    const lost = this.random.chance(this.faults.loseReply);
    seen?.(twice || lost, lost);
    if (lost) throw new Error('network: reply lost');
    return reply;
  }
}
