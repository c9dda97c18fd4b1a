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
}

export class LossyLink implements SyncTransport {
  partitioned = false;
  faults: LinkFaults;
  /** Customers central answered about for a waiting counter (first sync) that reached the store. */
  customersAnswered = 0;
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
    if (this.#sent.length > 0 && this.random.chance(this.faults.replayOld)) {
      await this.inner.push(this.random.pick(this.#sent)).catch(() => undefined);
    }
    this.#sent.push(structuredClone(request));
    if (this.#sent.length > 20) this.#sent.shift();
    return this.#deliver(() => this.inner.push(structuredClone(request)));
  }

  async pull(after: number, limit: number): Promise<PullResponse> {
    this.#refuseWhenDown();
    return this.#deliver(() => this.inner.pull(after, limit));
  }

  async snapshot(request: SnapshotRequest): Promise<SnapshotPageOnTheWire> {
    this.#refuseWhenDown();
    return this.#deliver(() => this.inner.snapshot!(request));
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

  async #deliver<T>(call: () => Promise<T>): Promise<T> {
    let reply = await call();
    if (this.random.chance(this.faults.duplicate)) reply = await call();
    if (this.random.chance(this.faults.loseReply)) throw new Error('network: reply lost');
    return reply;
  }
}
