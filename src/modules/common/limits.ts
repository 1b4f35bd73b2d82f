// What one request may ask and how much the server holds open: the values every layer reads (the server
// enforces them; the candidate search stops at maxCandidates).
import { DEFAULT_MAX_CANDIDATES } from '../candidates/index.js';

export interface Limits {
  /** Deepest nesting of brackets ({ [ and () in a document's text, checked before it is parsed. */
  maxNesting: number;
  /** Most tokens in a document (graphql-js stops parsing past them). */
  maxTokens: number;
  /** Deepest nesting of selections. */
  maxDepth: number;
  /** Aliased fields in one document. */
  maxAliases: number;
  /** Estimated cost: every field 1, multiplied by the expected size of the lists around it. */
  maxCost: number;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** Most allocation requests one candidate search may build before answering truncated. */
  maxCandidates: number;
  /** Open HTTP connections, in total and from one client address (past them: 503 and 429). */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Open streaming answers (SSE or multipart subscriptions), in total and from one client address. */
  maxStreams: number;
  maxStreamsPerAddress: number;
  /** Bytes of answers a subscription stream may leave unread; past them the subscriber is dropped. */
  maxStreamBufferBytes: number;
  /** Parsed documents kept for reuse, bounded by the sum of their lengths; longer documents are not kept. */
  documentCacheBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxNesting: 64,
  maxTokens: 20_000,
  maxDepth: 15,
  maxAliases: 50,
  maxCost: 200_000,
  maxBodyBytes: 1_000_000,
  maxCandidates: DEFAULT_MAX_CANDIDATES,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 100,
  maxStreams: 500,
  maxStreamsPerAddress: 20,
  maxStreamBufferBytes: 1_000_000,
  documentCacheBytes: 500_000,
};

