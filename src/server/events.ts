// The change feed of a server: yoga's pub/sub, shared with the other workers under serve --workers.
import { createPubSub } from 'graphql-yoga';
import type { ChangeFeed, ChangeTopics } from '../modules/changes/changes.feed.js';
import { relayChanges } from './workers.js';

export function createChangeFeed(): ChangeFeed {
  const pubsub = relayChanges(createPubSub<{ [T in keyof ChangeTopics]: [ChangeTopics[T]] }>());
  return {
    publish: (topic, payload) => pubsub.publish(topic, payload as never),
    subscribe: (topic) => pubsub.subscribe(topic) as AsyncIterable<never>,
  };
}
