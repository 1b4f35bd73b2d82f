// The change feed of a server: each subscriber's events queued in order, shared with the other workers
// under serve --workers (the domain publishes through the ChangeFeed it is given).
import type { ChangeFeed, ChangeTopics } from '../modules/changes/changes.feed.js';
import { relayChanges } from './workers.js';

/**
 * One subscriber's events, in order. Publishing never waits and never fails, however many events one
 * change publishes (a repeater-based pub/sub refuses a 1025th pending event by throwing inside the
 * publisher, which ends the process); what a stream may hold unread is bounded where it is read
 * (useStreams in plugins.ts), and its reader takes every event as it comes.
 */
class Subscription<T> implements AsyncIterableIterator<T> {
  private queue: T[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private closed = false;

  constructor(private readonly leave: (subscription: Subscription<T>) => void) {}

  push(value: T) {
    if (this.closed) return;
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) waiting({ value, done: false });
    else this.queue.push(value);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++]!;
      if (this.head === this.queue.length) (this.queue = []), (this.head = 0);
      return Promise.resolve({ value, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.closed = true;
    this.queue = [];
    this.leave(this);
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

export type ServerFeed = ChangeFeed & {
  /** Subscriptions open now, over all topics. */
  subscriptions(): number;
};

export function createChangeFeed(): ServerFeed {
  const subscribers = new Map<keyof ChangeTopics, Set<Subscription<unknown>>>();
  return relayChanges({
    publish<K extends keyof ChangeTopics>(topic: K, payload: ChangeTopics[K]) {
      for (const subscription of subscribers.get(topic) ?? []) subscription.push(payload);
    },
    subscribe<K extends keyof ChangeTopics>(topic: K): AsyncIterableIterator<ChangeTopics[K]> {
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      const subscription = new Subscription<ChangeTopics[K]>((s) => set.delete(s as Subscription<unknown>));
      set.add(subscription as Subscription<unknown>);
      return subscription;
    },
    subscriptions(): number {
      let n = 0;
      for (const set of subscribers.values()) n += set.size;
      return n;
    },
  });
}
