// What subscribers are told once a change is committed, and the feed it goes through. The write port
// publishes; the server plugs in the feed (shared with the other workers of serve --workers).

export interface ProviderChange {
  /** The write operation that made the change (the mutation of that name, or the REST call doing the same). */
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

export interface ChangeTopics {
  providerChanged: ProviderChange;
  usageChanged: UsageChange;
  providerConfigApplied: ProviderConfigApplied;
}

export type ChangeEvent = { [T in keyof ChangeTopics]: { topic: T; payload: ChangeTopics[T] } }[keyof ChangeTopics];

export interface ChangeFeed {
  publish<T extends keyof ChangeTopics>(topic: T, payload: ChangeTopics[T]): void;
  subscribe<T extends keyof ChangeTopics>(topic: T): AsyncIterable<ChangeTopics[T]>;
}

export function publish(feed: ChangeFeed, events: readonly ChangeEvent[]) {
  for (const event of events) feed.publish(event.topic, event.payload);
}

/** A feed nobody listens to (a command-line write, or a test without subscribers). */
export const SILENT_FEED: ChangeFeed = {
  publish: () => {},
  subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) }),
};
