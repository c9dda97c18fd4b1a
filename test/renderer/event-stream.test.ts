import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventStream, EVENT_STREAM_RETRY_MS } from '../../src/renderer/src/events/event-stream';

// The page's event stream with a scripted EventSource: a dropped connection is the browser's to
// retry (readyState CONNECTING), but one the node answered with an HTTP error closes the
// EventSource for good (readyState CLOSED) and must be reopened by the page.

class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static made: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.made.push(this);
  }
  addEventListener(): void {}
  close(): void {
    this.closed = true;
    this.readyState = FakeEventSource.CLOSED;
  }
  open(): void {
    this.readyState = FakeEventSource.OPEN;
    this.onopen?.();
  }
  /** The browser's error: `fatal` (an HTTP error answer) leaves it CLOSED, else it reconnects itself. */
  fail(fatal: boolean): void {
    this.readyState = fatal ? FakeEventSource.CLOSED : FakeEventSource.CONNECTING;
    this.onerror?.();
  }
}

afterEach(() => {
  vi.useRealTimers();
  FakeEventSource.made = [];
});

describe('event stream reconnection', () => {
  it('reopens a stream the browser closed for good, with backoff, and resyncs when it opens', () => {
    vi.useFakeTimers();
    const stream = createEventStream(FakeEventSource as unknown as typeof EventSource);
    const resync = vi.fn();
    stream.onResync(resync);
    stream.connect('http://node/app/events?api_key=k');
    FakeEventSource.made[0]!.open();
    expect(resync).toHaveBeenCalledTimes(1);

    FakeEventSource.made[0]!.fail(true);
    expect(stream.state.getState().status).toBe('offline');
    vi.advanceTimersByTime(EVENT_STREAM_RETRY_MS);
    expect(FakeEventSource.made).toHaveLength(2);
    expect(stream.state.getState().status).toBe('offline'); // still offline until it opens

    FakeEventSource.made[1]!.fail(true);
    vi.advanceTimersByTime(EVENT_STREAM_RETRY_MS);
    expect(FakeEventSource.made).toHaveLength(2); // backing off: twice as long this time
    vi.advanceTimersByTime(EVENT_STREAM_RETRY_MS);
    expect(FakeEventSource.made).toHaveLength(3);

    FakeEventSource.made[2]!.open();
    expect(stream.state.getState().status).toBe('open');
    expect(resync).toHaveBeenCalledTimes(2);
  });

  it('tells the page each time the node refuses the stream (an HTTP error), never for a dropped connection', () => {
    vi.useFakeTimers();
    const stream = createEventStream(FakeEventSource as unknown as typeof EventSource);
    const refused = vi.fn();
    stream.connect('http://node/app/events?api_key=k', refused);
    FakeEventSource.made[0]!.fail(false);
    expect(refused).not.toHaveBeenCalled();
    FakeEventSource.made[0]!.fail(true);
    expect(refused).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(EVENT_STREAM_RETRY_MS);
    FakeEventSource.made[1]!.fail(true);
    expect(refused).toHaveBeenCalledTimes(2);
  });

  it('leaves a dropped connection to the browser, and stops retrying once disconnected', () => {
    vi.useFakeTimers();
    const stream = createEventStream(FakeEventSource as unknown as typeof EventSource);
    stream.connect('http://node/app/events?api_key=k');
    FakeEventSource.made[0]!.fail(false);
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.made).toHaveLength(1);

    FakeEventSource.made[0]!.fail(true);
    stream.disconnect();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.made).toHaveLength(1);
    expect(stream.state.getState().status).toBe('idle');
  });
});
