// The parsed documents (and parse errors) kept for reuse, weighed by the length of their text: a parsed
// document takes some 70 to 250 times its text's bytes, so a cache counting entries could hold gigabytes.
// The validation results and compiled queries cached elsewhere (yoga's validation cache, graphql-jit, the
// candidate answer writers) are kept in WeakMaps keyed by these documents: this bound bounds them too
// (the JSON that kept requests and summaries hold themselves is bounded per object, in answer-json.ts).
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** A document's share of the cache at most: longer ones are parsed each time they come. */
const LARGEST_SHARE = 8;

export class DocumentCache {
  private readonly entries: LRUCache<string, DocumentNode | Error>;

  constructor(readonly maxBytes: number) {
    this.entries = new LRUCache({ maxSize: maxBytes, maxEntrySize: Math.floor(maxBytes / LARGEST_SHARE), sizeCalculation: (_value, source) => Math.max(1, source.length) });
  }

  /** The sum of the lengths of the documents kept. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  has(source: string): boolean {
    return this.entries.has(source);
  }

  /** The two caches yoga's parser cache asks for, sharing this one bound. */
  forYoga() {
    const entries = this.entries;
    return {
      documentCache: {
        get: (source: string) => {
          const found = entries.get(source);
          return found instanceof Error ? undefined : found;
        },
        set: (source: string, document: DocumentNode) => void entries.set(source, document),
      },
      errorCache: {
        get: (source: string) => {
          const found = entries.get(source);
          return found instanceof Error ? found : undefined;
        },
        set: (source: string, error: Error) => void entries.set(source, error),
      },
    };
  }
}
