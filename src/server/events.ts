// Change events published after each committed mutation, for subscriptions over SSE.
import { relayChanges } from './workers.js';

export interface ProviderChange {
  mutation: string;
  providerUuid: string;
  /** What changed: INVENTORIES, TRAITS, AGGREGATES, PROVIDER (name, parent, creation) or DELETED. */
  kind: 'INVENTORIES' | 'TRAITS' | 'AGGREGATES' | 'PROVIDER' | 'DELETED';
}

export interface UsageChange {
  mutation: string;
  consumerUuid: string;
  providerUuids: string[];
}

export interface ProviderConfigApplied {
  documents: string[];
  providerUuids: string[];
}

interface Topics {
  providerChanged: ProviderChange;
  usageChanged: UsageChange;
  providerConfigApplied: ProviderConfigApplied;
}

export type ChangeEvent = { [K in keyof Topics]: { topic: K; payload: Topics[K] } }[keyof Topics];

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

/** The change feed; under serve --workers, shared with the other workers. */
export function createChangeFeed() {
  const subscribers = new Map<keyof Topics, Set<Subscription<any>>>();
  return relayChanges({
    publish<K extends keyof Topics>(topic: K, payload: Topics[K]) {
      for (const subscription of subscribers.get(topic) ?? []) subscription.push(payload);
    },
    subscribe<K extends keyof Topics>(topic: K): AsyncIterableIterator<Topics[K]> {
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      const subscription = new Subscription<Topics[K]>((s) => set.delete(s));
      set.add(subscription);
      return subscription;
    },
    /** Subscriptions open now, over all topics. */
    subscriptions(): number {
      let n = 0;
      for (const set of subscribers.values()) n += set.size;
      return n;
    },
  });
}

export type ChangeFeed = ReturnType<typeof createChangeFeed>;

export function publish(feed: ChangeFeed, events: readonly ChangeEvent[]) {
  for (const event of events) feed.publish(event.topic, event.payload as never);
}
