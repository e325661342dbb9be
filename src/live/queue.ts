/** Past this many items unread, a queue with an `overflow` ends with it: its consumer does not keep up. */
export const MAX_UNREAD_ITEMS = 1_000;

/**
 * An async iterator fed by pushes: what a subscription's source stream is. `end` finishes it after
 * what is queued; a consumer that stops early (the client went away) runs `onClose` once either way.
 * A consumer that does not read is not buffered for without bound: past MAX_UNREAD_ITEMS the queue
 * drops what it holds and ends with `overflow()`.
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;
  private onDrained: (() => void) | undefined;

  constructor(
    private readonly onClose: () => void,
    private readonly overflow?: () => T,
  ) {}

  push(item: T): void {
    if (this.ended) return;
    if (this.overflow && this.items.length >= MAX_UNREAD_ITEMS) {
      this.items.length = 0;
      this.items.push(this.overflow());
      this.end();
      return;
    }
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
    } else this.items.push(item);
  }

  /** Resolves once the consumer has taken every item pushed so far, or the stream ended. */
  drained(): Promise<void> {
    if (this.items.length === 0 || this.ended) return Promise.resolve();
    return new Promise((resolve) => (this.onDrained = resolve));
  }

  private settleDrained(): void {
    const resolve = this.onDrained;
    this.onDrained = undefined;
    resolve?.();
  }

  /** Ends the stream once the queued items are read. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onClose();
    this.settleDrained();
    if (this.waiting && this.items.length === 0) this.waiting({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) {
      const item = this.items.shift()!;
      if (this.items.length === 0) this.settleDrained();
      return Promise.resolve({ value: item, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
