// Change events published after each committed mutation, for subscriptions over SSE.
import { createPubSub } from 'graphql-yoga';
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

export type ChangeEvent =
  | { topic: 'providerChanged'; payload: ProviderChange }
  | { topic: 'usageChanged'; payload: UsageChange }
  | { topic: 'providerConfigApplied'; payload: ProviderConfigApplied };

/** The change feed; under serve --workers, shared with the other workers. */
export const createChangeFeed = () =>
  relayChanges(createPubSub<{ providerChanged: [ProviderChange]; usageChanged: [UsageChange]; providerConfigApplied: [ProviderConfigApplied] }>());

export type ChangeFeed = ReturnType<typeof createChangeFeed>;

export function publish(feed: ChangeFeed, events: readonly ChangeEvent[]) {
  for (const event of events) feed.publish(event.topic, event.payload as any);
}
